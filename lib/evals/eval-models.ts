import { providerOf } from "../models/provider-names.ts";
import { MODEL_PROVIDERS, type ModelSpec } from "../config/define.ts";
import type { Settings } from "../config/settings.ts";
import { HttpError } from "../errors/http-error.ts";
import type { RuntimeAgent } from "../runtime/agents.ts";

/**
 * The models of an eval: the one the evaluated agent runs with (its own, or the request's
 * `model_id`/`model_provider` for this eval only, as Agno's temporary override) and the judge's
 * (the request's `judge_model_id`/`judge_model_provider`, else the agent's own configured model —
 * which is also what Agno's judge gets when the request overrides the agent's model).
 *
 * A model named in a request is reached with the credentials already configured for its
 * provider (an agent's model or reasoning model of that provider): a request never carries keys.
 * Only an admin may name a model that is not configured (`anyModel`): a member's eval spends the
 * server's credentials on the models the operator chose, and no other.
 */

/** The configured models, each once, in the order agents declare them. */
function configuredSpecs(settings: Settings): ModelSpec[] {
  const specs: ModelSpec[] = [];
  for (const agent of settings.agents) for (const spec of [agent.model, agent.reasoningModel]) if (spec && !specs.includes(spec)) specs.push(spec);
  return specs;
}

/**
 * A model named by id and provider (Agno's provider names too: "OpenAI", "Anthropic", "Ollama", "MistralChat", "Gemini"),
 * with its provider's configured credentials. 400 naming the provider when it is unknown or none
 * of its models is configured here. `field` names the request's fields in the message.
 */
export function namedModel(settings: Settings, { id, provider }: { id: string; provider: string }, field: "model" | "judge_model", anyModel: boolean): ModelSpec {
  const kind = providerOf(provider);
  if (!kind) throw new HttpError(400, `${field}_provider '${provider}' is not a provider Agentry knows: use one of ${MODEL_PROVIDERS.join(", ")}`);
  const specs = configuredSpecs(settings).filter((spec) => spec.provider === kind);
  if (specs.length === 0) throw new HttpError(400, `${field}_provider '${provider}': no ${kind} model is configured on this server, so there are no credentials to call '${id}' with`);
  // The configured spec itself when it is the same model (one AI SDK model per spec: resolveModel caches by spec).
  const same = specs.find((spec) => spec.id === id);
  if (same) return same;
  if (!anyModel)
    throw new HttpError(403, `${field}_id '${id}' is not a model configured on this server; only admins may name another (configured ${kind} models: ${specs.map((s) => s.id).join(", ")})`);
  return { provider: kind, id, baseUrl: specs[0]!.baseUrl, apiKey: specs[0]!.apiKey };
}

/** The agent as the eval runs it: with the override's model, or as configured. */
export function evaluatedAgent(settings: Settings, agent: RuntimeAgent, override: { modelId?: string | null; modelProvider?: string | null }, anyModel: boolean): RuntimeAgent {
  if (!override.modelId || !override.modelProvider) return agent;
  const own = agent.definition.model;
  if (own && own.id === override.modelId && providerOf(override.modelProvider) === own.provider) return agent;
  const model = namedModel(settings, { id: override.modelId, provider: override.modelProvider }, "model", anyModel);
  return { ...agent, definition: { ...agent.definition, model } };
}

/** The judge's model: the request's, else the agent's own configured model; null when neither exists. */
export function judgeModel(settings: Settings, agent: RuntimeAgent, judge: { modelId?: string | null; modelProvider?: string | null }, anyModel: boolean): ModelSpec | null {
  if (judge.modelId && judge.modelProvider) return namedModel(settings, { id: judge.modelId, provider: judge.modelProvider }, "judge_model", anyModel);
  return agent.definition.model;
}
