import { randomUUID } from "node:crypto";
import type { z } from "zod";
import { dataScopeFor, type Principal } from "../../auth/principal.ts";
import type { Settings } from "../../config/settings.ts";
import { ConflictError, NotFoundError, PermissionError } from "../../errors/domain-errors.ts";
import type { Db } from "../../db/open-database.ts";
import type { DataScope } from "../../db/scope.ts";
import { log } from "../../log.ts";
import { unsafeTextIn } from "../input-text.ts";

/** What a dashboard form shows after its server action: a message, an error, a one-time link. */
export interface ActionState {
  ok: boolean | null;
  /** HTTP-like status of the outcome (401 not signed in, 403 not allowed, 404, 409, 422, 500). */
  status?: number;
  message?: string;
  error?: string;
  /** A one-time link to copy (invites, password resets); shown once. */
  link?: string;
  /** Where the form goes next, when the action made something to open (a started eval's page). */
  href?: string;
}

/** What the sign-in, setup and link forms show after submitting (they redirect on success). */
export interface AuthFormState {
  error?: string;
  email?: string;
}

export interface ActionContext<I> {
  input: I;
  principal: Principal;
  /** The caller's data scope (dataScopeFor), acting for the user `actFor` names where an admin names one. */
  scope: DataScope;
  db: Db;
  settings: Settings;
  /** The dashboard's origin, for links. */
  origin: string;
}

export interface DashboardAction {
  readonly name: string;
  readonly access: "admin" | "signed-in";
  /** The dashboard path to re-render after a success. */
  readonly revalidate?: string;
  /**
   * Checks the principal, validates the form, runs the handler and maps failures to a state the
   * form can show. Server actions are public POST endpoints, so this runs inside every one of them.
   */
  run(call: { principal: Principal | null; formData: FormData; db: Db; settings: Settings; origin: string }): Promise<ActionState>;
}

/**
 * The API's rules for form text, applied to a server action's fields: each text field within the
 * form-field cap (413), and no text storage cannot hold alike on both dialects (NUL, a lone
 * surrogate: 422). Uploaded files are bytes and are not inspected.
 */
function formTextProblem(fields: Record<string, FormDataEntryValue>, maxFieldBytes: number): { status: number; error: string } | null {
  const text = Object.fromEntries(Object.entries(fields).filter((entry): entry is [string, string] => typeof entry[1] === "string"));
  for (const [name, value] of Object.entries(text)) {
    if (Buffer.byteLength(value, "utf8") > maxFieldBytes) return { status: 413, error: `${name}: longer than the limit of ${maxFieldBytes} bytes` };
  }
  const [unsafe] = unsafeTextIn(text);
  return unsafe ? { status: 422, error: `${unsafe.path.join(".") || "form"}: ${unsafe.message}` } : null;
}

/** Declares a dashboard server action: who may call it, its form schema and its handler. */
export function defineDashboardAction<S extends z.ZodType>(definition: {
  name: string;
  access: "admin" | "signed-in";
  input: S;
  revalidate?: string;
  /**
   * The user whose rows an admin's action touches, from its form; dataScopeFor ignores it for a
   * member. Absent: every caller acts as itself (an admin on everyone's rows).
   */
  actFor?: (input: z.output<S>, principal: Principal) => string | null | undefined;
  handler: (ctx: ActionContext<z.output<S>>) => Promise<ActionState>;
}): DashboardAction {
  return {
    name: definition.name,
    access: definition.access,
    revalidate: definition.revalidate,
    async run({ principal, formData, db, settings, origin }) {
      if (!principal) return { ok: false, status: 401, error: "Sign in first." };
      if (definition.access === "admin" && !principal.isAdmin) return { ok: false, status: 403, error: "Only admins can do this." };
      const fields = Object.fromEntries([...formData.entries()].filter(([key]) => !key.startsWith("$ACTION")));
      const refused = formTextProblem(fields, settings.limits.maxFormFieldBytes);
      if (refused) return { ok: false, ...refused };
      const parsed = await definition.input.safeParseAsync(fields);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        return { ok: false, status: 422, error: `${issue.path.join(".") || "form"}: ${issue.message}` };
      }
      try {
        const scope = dataScopeFor(principal, definition.actFor?.(parsed.data, principal));
        return await definition.handler({ input: parsed.data, principal, scope, db, settings, origin });
      } catch (error) {
        if (error instanceof PermissionError) return { ok: false, status: 403, error: error.message };
        if (error instanceof NotFoundError) return { ok: false, status: 404, error: error.message };
        if (error instanceof ConflictError) return { ok: false, status: 409, error: error.message };
        const errorId = randomUUID();
        log.error(`[error ${errorId}] dashboard action ${definition.name}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
        return { ok: false, status: 500, error: `Something went wrong (error ${errorId}).` };
      }
    },
  };
}
