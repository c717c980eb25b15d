import { z } from "zod";
import type { Db } from "../../db/open-database.ts";
import { unsafeSystemScope } from "../../db/scope.ts";
import { getSession, listSessions } from "../../db/sessions/sessions.ts";
import { defineTool, type ToolDefinition } from "./types.ts";

/**
 * `searchPastSessions`: a tool over the user's earlier sessions with this agent — the last
 * `numPastSessionsToSearch` sessions, `numPastSessionRunsInSearch` runs each, optionally filtered
 * by a query. Scoped to the run's own user; never sees anyone else's sessions.
 */
export function pastSessionsTool({ db, agentId, numSessions, numRuns }: { db: Db; agentId: string; numSessions: number; numRuns: number }): ToolDefinition<{ query?: string }> {
  return defineTool({
    name: "search_past_sessions",
    description: "Search the user's earlier conversations with you. Optionally pass a query to keep only exchanges that mention it.",
    parameters: z.object({ query: z.string().optional() }),
    async execute({ query }, ctx) {
      if (!ctx.userId) return "Past sessions are only available for runs with a user.";
      const scope = unsafeSystemScope("a tool of the run reads its own user's sessions", { actingAs: ctx.userId });
      const { sessions } = await listSessions(db, {
        scope,
        sessionType: "agent",
        componentId: agentId,
        sortBy: "updated_at",
        limit: numSessions + 1,
        page: 1,
      });
      const needle = query?.toLowerCase();
      const found: { session_id: string; exchanges: { input: unknown; answer: unknown }[] }[] = [];
      for (const summary of sessions.filter((s) => s.session_id !== ctx.sessionId).slice(0, numSessions)) {
        const session = await getSession(db, { scope, sessionId: summary.session_id });
        const exchanges = (session?.runs ?? [])
          .slice(-numRuns)
          .map((run) => ({ input: (run.input as { input_content?: unknown } | undefined)?.input_content ?? null, answer: run.content ?? null }))
          .filter((e) => !needle || JSON.stringify(e).toLowerCase().includes(needle));
        if (exchanges.length > 0) found.push({ session_id: summary.session_id, exchanges });
      }
      return found.length > 0 ? found : "No matching past sessions.";
    },
  });
}
