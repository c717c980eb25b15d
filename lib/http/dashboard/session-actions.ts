import { z } from "zod";
import { NotFoundError } from "../../errors/domain-errors.ts";
import { deleteSessions } from "../../db/sessions/sessions.ts";
import { updateSession } from "../../db/sessions/session-writes.ts";
import { defineDashboardAction } from "./action.ts";

/**
 * Renaming and deleting sessions from the dashboard, through the same scoped functions as
 * PATCH/DELETE /sessions: a member's scope only ever matches its own sessions, so another user's
 * session is "not found", never changed.
 */
const SessionId = z.object({ sessionId: z.string().min(1) });

export const renameSessionAction = defineDashboardAction({
  name: "renameSession",
  access: "signed-in",
  input: SessionId.extend({ name: z.string().trim().min(1, "a session name cannot be empty").max(200, "keep the name under 200 characters") }),
  revalidate: "/dashboard/sessions",
  async handler({ input, scope, db }) {
    const session = await updateSession(db, { scope, sessionId: input.sessionId, sessionName: input.name });
    if (!session) throw new NotFoundError("Session not found");
    return { ok: true, message: `Renamed to "${input.name}".` };
  },
});

export const deleteSessionAction = defineDashboardAction({
  name: "deleteSession",
  access: "signed-in",
  input: SessionId,
  revalidate: "/dashboard/sessions",
  async handler({ input, scope, db }) {
    const deleted = await deleteSessions(db, { scope, sessionIds: [input.sessionId] });
    if (deleted === 0) throw new NotFoundError("Session not found");
    return { ok: true, message: "Session deleted with its runs." };
  },
});
