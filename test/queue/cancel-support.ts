import pg from "pg";
import { deferred, messageText, startModelServer, type ChatCompletionRequest, type Deferred, type ScriptStep } from "../../e2e/fixtures/model-server.ts";
import { postgresUrl } from "../support/databases.ts";

/** What the cancel suites share: a PostgreSQL lock holder and a scripted model behind a gate. */

/** The text of the last user message the model was sent. */
export const lastUserText = (body: Pick<ChatCompletionRequest, "messages">): string => messageText([...body.messages].reverse().find((m) => m.role === "user") as Parameters<typeof messageText>[0]);

/** Whether the model was sent a tool's result (a continuation's call, after the confirmed tool ran). */
export const afterTool = (body: Pick<ChatCompletionRequest, "messages">): boolean => body.messages.some((m) => m.role === "tool");

/**
 * The scripted model server answering with `respond`, which gets the gate to hold answers on:
 * openGate() lets every held answer finish (answers held later wait for the next gate).
 */
export async function gatedModel(respond: (body: ChatCompletionRequest, gate: () => Promise<unknown>) => ScriptStep) {
  let gate: Deferred = deferred();
  const server = await startModelServer({ respond: (body) => respond(body, () => gate.promise) });
  return {
    server,
    openGate() {
      gate.resolve();
      gate = deferred();
    },
    /** Whether the model was asked about `message` (optionally: with a tool's result). */
    asked: (message: string, { afterTool: continued = false } = {}) => server.requests.some((r) => lastUserText(r.body) === message && (!continued || afterTool(r.body))),
    async close() {
      gate.resolve();
      await server.close();
    },
  };
}

/**
 * A PostgreSQL session of the test's own in the app's schema: it holds row locks in an open
 * transaction, so a statement of the app can be caught waiting for one (PostgreSQL only).
 */
export async function lockSession(schema: string) {
  const client = new pg.Client({ connectionString: postgresUrl });
  await client.connect();
  await client.query(`SET search_path TO "${schema}"`);
  const [{ pid }] = (await client.query<{ pid: number }>("SELECT pg_backend_pid() AS pid")).rows;
  return {
    query: (text: string, params: unknown[] = []) => client.query(text, params),
    /** Whether a statement of another session waits for this one's locks. */
    async blocks(): Promise<boolean> {
      const rows = (await client.query("SELECT 1 FROM pg_stat_activity WHERE $1 = ANY (pg_blocking_pids(pid))", [pid])).rows;
      return rows.length > 0;
    },
    end: () => client.end(),
  };
}
