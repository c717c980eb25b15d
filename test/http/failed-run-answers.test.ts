import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AgentDefinition } from "@/lib/config/define.ts";
import { defineExternalAgent } from "@/lib/config/external-agent.ts";
import { defineTeam } from "@/lib/config/define.ts";
import { defineWorkflow, step } from "@/lib/config/workflow.ts";
import { getRun } from "@/lib/db/index.ts";
import { startModelServer, type ModelServer } from "../../e2e/fixtures/model-server.ts";
import { DIALECTS } from "../support/databases.ts";
import { adminScope } from "../support/scopes.ts";
import { startTestApp, type TestApp } from "../support/test-app.ts";

type Json = Record<string, unknown>;

const form = (fields: Record<string, string>) => ({ form: fields });

/**
 * A non-streamed run that ends in ERROR: an agent's or team's answers 200 with its RunOutput (as
 * Agno's routes return `run_response.to_dict()`), a missing provider 503, a workflow's failure (an
 * exception in Agno) 500.
 */
for (const dialect of DIALECTS) {
  describe.skipIf(dialect.skipReason !== null)(`non-streamed runs that end in ERROR (${dialect.name})`, () => {
    let server: ModelServer;
    let app: TestApp;

    beforeAll(async () => {
      server = await startModelServer();
      const model = { provider: "openai-compatible" as const, id: "scripted", baseUrl: server.url, apiKey: "t" };
      const helper: AgentDefinition = { id: "helper", name: "Helper", model };
      const unconfigured: AgentDefinition = { id: "unconfigured", name: "No Model", model: null };
      app = await startTestApp({
        dialect,
        agents: [
          helper,
          unconfigured,
          // An error type that contains "not_configured" but is not model_not_configured_error.
          defineExternalAgent({
            id: "lookalike",
            name: "Lookalike",
            adapter: {
              framework: "test",
              invoke: async () => {
                throw Object.assign(new Error("The graph's store is not set up"), { type: "graph_store_not_configured_error" });
              },
              // biome-ignore lint/correctness/useYield: it fails before anything is streamed.
              stream: async function* () {
                throw new Error("not streamed in this test");
              },
            },
          }),
        ],
        teams: [defineTeam({ id: "desk", name: "Desk", model, members: [helper] })],
        workflows: [
          defineWorkflow({
            id: "breaks",
            name: "Breaks",
            steps: [
              step({
                name: "explode",
                executor: () => {
                  throw new Error("secret internal detail");
                },
              }),
            ],
          }),
        ],
      });
    });
    afterAll(async () => {
      await app?.close();
      await server?.close();
    });

    it("an agent's run: 200 with status ERROR, its error_type and the provider's message; stored ERROR", async () => {
      server.script([{ error: { status: 400, message: "This model does not like you" } }]);
      const response = await app.call("POST", "/agents/helper/runs", form({ message: "hi", stream: "false" }));
      expect(response.status).toBe(200);
      const output = (await response.json()) as Json;
      expect(output).toMatchObject({ status: "ERROR", agent_id: "helper", error: { error_type: "model_provider_error" } });
      expect(String(output.content)).toContain("This model does not like you");
      const stored = await getRun(await app.db(), { scope: adminScope(), runId: String(output.run_id) });
      expect(stored?.status).toBe("ERROR");
      expect(stored?.run_data).toMatchObject({ content: output.content, error: output.error });
    });

    it("a team's run: 200 with its TeamRunOutput, status ERROR", async () => {
      server.script([{ error: { status: 400, message: "The leader's model refused" } }]);
      const response = await app.call("POST", "/teams/desk/runs", form({ message: "hi", stream: "false" }));
      expect(response.status).toBe(200);
      const output = (await response.json()) as Json;
      expect(output).toMatchObject({ status: "ERROR", team_id: "desk" });
      expect(String(output.content)).toContain("The leader's model refused");
    });

    it("no provider configured stays a 503 naming what to set; a workflow's failure is a 500 that keeps the failure's text on the run", async () => {
      const unconfigured = await app.call("POST", "/agents/unconfigured/runs", form({ message: "hi", stream: "false" }));
      expect(unconfigured.status).toBe(503);
      expect(await unconfigured.json()).toMatchObject({ error_type: "model_not_configured_error", detail: expect.stringMatching(/OPENAI_API_KEY/) });
      const broken = await app.call("POST", "/workflows/breaks/runs", form({ message: "go", stream: "false" }));
      expect(broken.status).toBe(500);
      const body = (await broken.json()) as Json;
      expect(body).toMatchObject({ error_type: "run_error", run_id: expect.any(String) });
      expect(JSON.stringify(body)).not.toContain("secret internal detail");
      expect((await getRun(await app.db(), { scope: adminScope(), runId: String(body.run_id) }))?.status).toBe("ERROR");
    });

    it("the status is keyed on the exact error_type: a type that only contains not_configured answers 200 with the run", async () => {
      const response = await app.call("POST", "/agents/lookalike/runs", form({ message: "hi", stream: "false" }));
      expect(response.status).toBe(200);
      expect(await response.json()).toMatchObject({ status: "ERROR", error: { error_type: "graph_store_not_configured_error", message: "The graph's store is not set up" } });
    });
  });
}
