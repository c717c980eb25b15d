import { z } from "zod";
import type { Principal } from "../../auth/principal.ts";
import { COMPONENT_TYPES, parseComponentConfig, type ComponentType } from "../../config/component-config.ts";
import type { Settings } from "../../config/settings.ts";
import { HttpError } from "../../errors/http-error.ts";
import { archiveComponent, createComponent, createConfig, deleteConfig, restoreComponent, setCurrentConfig, storeCaller, updateConfig, type StoreCaller } from "../../components/store.ts";
import { decodeJsonText, unsafeTextIn } from "../input-text.ts";
import { outputSchemaProblem } from "../schemas/output-schema.ts";
import { defineDashboardAction, type ActionState } from "./action.ts";

/**
 * Studio's server actions: each builds the store's caller from the signed-in principal (never from
 * the form) and calls lib/components/store.ts, which decides what the caller may see and change
 * exactly as the /components API does — a member writes only its own components, attaches only
 * what the registry offers members (an admin-only toolkit in a forged form is the store's
 * refusal, shown as it is), and every refusal keeps the store's status and detail.
 */

export const STUDIO_PATH = "/dashboard/studio";

/** A component's Studio page. */
export const studioHref = (componentId: string) => `${STUDIO_PATH}/${encodeURIComponent(componentId)}`;

/** The store's refusal (an HttpError: its status and detail) as the form's error; anything else is left to defineDashboardAction. */
function refusal(error: unknown): ActionState {
  if (!(error instanceof HttpError)) throw error;
  return { ok: false, status: error.status, error: detailText(error.detail) };
}

/** An HttpError's detail as one sentence: a string as it is, validation items as "loc: msg" joined. */
export function detailText(detail: unknown): string {
  if (typeof detail === "string") return detail;
  if (Array.isArray(detail)) {
    return detail
      .map((item) => {
        if (!item || typeof item !== "object") return String(item);
        const { loc, msg } = item as { loc?: unknown; msg?: unknown };
        const where = Array.isArray(loc) ? loc.filter((part) => part !== "body").join(".") : "";
        return where ? `${where}: ${String(msg)}` : String(msg);
      })
      .join("; ");
  }
  return JSON.stringify(detail);
}

/** Runs a store call for the caller, mapping the store's refusals to the form's state. */
async function withStore(context: { principal: Principal; settings: Settings }, call: (caller: StoreCaller) => Promise<ActionState>): Promise<ActionState> {
  try {
    return await call(storeCaller(context.principal, context.settings));
  } catch (error) {
    return refusal(error);
  }
}

const ComponentId = z.string({ error: "say which component" }).trim().min(1, "say which component").max(512, "a component id is at most 512 characters");
const VersionNumber = (what: string) =>
  z
    .string({ error: `say which ${what}` })
    .trim()
    .regex(/^\d{1,9}$/, `${what} must be a version number`)
    .transform(Number);
const OptionalVersion = (what: string) =>
  z
    .string()
    .trim()
    .optional()
    .transform((value, ctx) => {
      if (value === undefined || value === "") return undefined;
      if (!/^\d{1,9}$/.test(value)) {
        ctx.addIssue({ code: "custom", message: `${what} must be a version number` });
        return z.NEVER;
      }
      return Number(value);
    });
const Notes = z
  .string()
  .trim()
  .max(2000, "keep the notes under 2000 characters")
  .optional()
  .transform((value) => value || undefined);

/**
 * A config as the editor sends it (JSON text): an object, storable on both dialects, valid for its
 * type (lib/config/component-config.ts), and an inline output schema usable as one. The store
 * checks it again, with the registry and the limits.
 */
export function parseConfigField(type: ComponentType, text: string): { config: Record<string, unknown> } | { error: ActionState } {
  const refuse = (error: string): { error: ActionState } => ({ error: { ok: false, status: 422, error: error } });
  const decoded = decodeJsonText(text);
  if (!decoded.ok) return refuse(`config: ${decoded.message}`);
  const value = decoded.value;
  if (value === null || typeof value !== "object" || Array.isArray(value)) return refuse("config: must be a JSON object ({ … })");
  const [unsafe] = unsafeTextIn(value);
  if (unsafe) return refuse(`config.${unsafe.path.join(".") || "value"}: ${unsafe.message}`);
  const parsed = parseComponentConfig(type, value);
  if (!parsed.ok) return refuse(parsed.problems.join("; "));
  const schema = parsed.config.output_schema;
  if (schema && typeof schema === "object") {
    const problem = outputSchemaProblem(schema as Record<string, unknown>);
    if (problem) return refuse(`config.output_schema: ${problem}`);
  }
  return { config: value as Record<string, unknown> };
}

/** The component name a config carries (the editor's Name field), trimmed; null when none. */
function configName(config: Record<string, unknown>): string | null {
  return typeof config.name === "string" && config.name.trim() ? config.name.trim() : null;
}

const SaveInput = z.object({
  /** Absent: a new component of `componentType`. */
  componentId: z
    .string()
    .trim()
    .max(512, "a component id is at most 512 characters")
    .optional()
    .transform((value) => value || undefined),
  componentType: z.enum(COMPONENT_TYPES, { error: "componentType: agent, team or workflow" }),
  /** The draft being edited (saved in place); absent: a new draft version. */
  version: OptionalVersion("version"),
  /** The latest version the page showed: a new draft is refused (409) when another version was made since. */
  latestVersion: OptionalVersion("latestVersion"),
  config: z.string({ error: "config: send the component's config" }).min(1, "config: send the component's config"),
  notes: Notes,
});

/**
 * Saves the editor's config as a draft: a new component (its first version, a draft), the draft
 * being edited (in place), or a new draft version after the published one. Never publishes.
 */
export const saveStudioDraftAction = defineDashboardAction({
  name: "saveStudioDraft",
  access: "signed-in",
  input: SaveInput,
  revalidate: STUDIO_PATH,
  async handler({ input, principal, db, settings }) {
    const parsed = parseConfigField(input.componentType, input.config);
    if ("error" in parsed) return parsed.error;
    const { config } = parsed;
    const name = configName(config);
    return withStore({ principal, settings }, async (caller) => {
      if (!input.componentId) {
        if (!name) return { ok: false, status: 422, error: "name: give the component a name" };
        const created = await createComponent(db, settings, caller, {
          name,
          component_type: input.componentType,
          description: typeof config.description === "string" && config.description ? config.description : undefined,
          config,
          stage: "draft",
          notes: input.notes,
        });
        return { ok: true, message: `Draft saved: ${created.component_id} v1.`, href: studioHref(created.component_id) };
      }
      if (input.version !== undefined) {
        const saved = await updateConfig(db, settings, caller, input.componentId, input.version, { config, ...(input.notes !== undefined ? { notes: input.notes } : {}) });
        return { ok: true, message: `Draft v${saved.version} saved.`, href: `${studioHref(input.componentId)}?saved=${saved.version}` };
      }
      const guard = input.latestVersion !== undefined ? { latest_version: input.latestVersion } : undefined;
      const saved = await createConfig(db, settings, caller, input.componentId, { config, stage: "draft", ...(input.notes !== undefined ? { notes: input.notes } : {}), ...(guard ? { guard } : {}) });
      return { ok: true, message: `Draft v${saved.version} saved.`, href: `${studioHref(input.componentId)}?saved=${saved.version}` };
    });
  },
});

const VersionInput = z.object({ componentId: ComponentId, version: VersionNumber("version") });

/** Publishes a draft: it becomes the component's current version, which every run without `version` uses from the next request on. */
export const publishStudioDraftAction = defineDashboardAction({
  name: "publishStudioDraft",
  access: "signed-in",
  input: VersionInput,
  revalidate: STUDIO_PATH,
  async handler({ input, principal, db, settings }) {
    return withStore({ principal, settings }, async (caller) => {
      const published = await updateConfig(db, settings, caller, input.componentId, input.version, { stage: "published" });
      return { ok: true, message: `v${published.version} published: it is the current version now.`, href: studioHref(input.componentId) };
    });
  },
});

/** Makes an earlier published version current again (rollback), if the current one is still what the page showed. */
export const setStudioCurrentAction = defineDashboardAction({
  name: "setStudioCurrent",
  access: "signed-in",
  input: VersionInput.extend({ currentVersion: OptionalVersion("currentVersion") }),
  revalidate: STUDIO_PATH,
  async handler({ input, principal, db, settings }) {
    return withStore({ principal, settings }, async (caller) => {
      const guard = input.currentVersion !== undefined ? { current_version: input.currentVersion } : undefined;
      await setCurrentConfig(db, settings, caller, input.componentId, input.version, guard);
      return { ok: true, message: `v${input.version} is the current version now.` };
    });
  },
});

/** Discards a draft version (its number is never given out again). */
export const deleteStudioDraftAction = defineDashboardAction({
  name: "deleteStudioDraft",
  access: "signed-in",
  input: VersionInput,
  revalidate: STUDIO_PATH,
  async handler({ input, principal, db, settings }) {
    return withStore({ principal, settings }, async (caller) => {
      await deleteConfig(db, settings, caller, input.componentId, input.version);
      return { ok: true, message: `Draft v${input.version} discarded.`, href: studioHref(input.componentId) };
    });
  },
});

/** Archives a component: no one can run it until it is restored, and its schedules are disabled. */
export const archiveStudioComponentAction = defineDashboardAction({
  name: "archiveStudioComponent",
  access: "signed-in",
  input: z.object({ componentId: ComponentId, currentVersion: OptionalVersion("currentVersion") }),
  revalidate: STUDIO_PATH,
  async handler({ input, principal, db, settings }) {
    return withStore({ principal, settings }, async (caller) => {
      await archiveComponent(db, settings, caller, input.componentId, input.currentVersion !== undefined ? { current_version: input.currentVersion } : undefined);
      return { ok: true, message: "Archived: it cannot be run until it is restored." };
    });
  },
});

export const restoreStudioComponentAction = defineDashboardAction({
  name: "restoreStudioComponent",
  access: "signed-in",
  input: z.object({ componentId: ComponentId }),
  revalidate: STUDIO_PATH,
  async handler({ input, principal, db, settings }) {
    return withStore({ principal, settings }, async (caller) => {
      await restoreComponent(db, settings, caller, input.componentId);
      return { ok: true, message: "Restored." };
    });
  },
});

/**
 * The editor's live check of an inline output schema (the browser checks the JSON itself; the
 * meta-schema check needs the server): ok, or what is wrong with it.
 */
export const checkStudioOutputSchemaAction = defineDashboardAction({
  name: "checkStudioOutputSchema",
  access: "signed-in",
  input: z.object({ schema: z.string({ error: "schema: write a JSON schema" }) }),
  async handler({ input }) {
    if (!input.schema.trim()) return { ok: true, message: "No output schema: the agent answers in text." };
    const decoded = decodeJsonText(input.schema);
    if (!decoded.ok) return { ok: false, status: 422, error: `output schema: ${decoded.message}` };
    const value = decoded.value;
    if (value === null || typeof value !== "object" || Array.isArray(value)) return { ok: false, status: 422, error: "output schema: must be a JSON object ({ … })" };
    const problem = outputSchemaProblem(value as Record<string, unknown>);
    return problem ? { ok: false, status: 422, error: `output schema: ${problem}` } : { ok: true, message: "A valid JSON schema: runs answer with an object matching it." };
  },
});

/** For the pages: the caller the store sees for this principal. */
export function studioCaller(principal: Principal, settings: Settings): StoreCaller {
  return storeCaller(principal, settings);
}
