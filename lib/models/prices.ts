import type { ModelPrice } from "../config/settings.ts";

/**
 * What a model's tokens cost: a price table by model id (USD per million tokens), the built-in
 * one below under the one `agentry.config.ts` configures (`metrics.prices`). Pure and
 * dependency-free (lib/config's types only), so lib/runtime prices a run as it settles.
 */

/**
 * List prices of common OpenAI and Anthropic models, USD per million tokens. Keys ending in `*`
 * are prefixes: dated snapshots (`gpt-4o-2024-08-06`, `claude-sonnet-4-20250514`) take their
 * family's price. A configured entry replaces the built-in one of the same key.
 */
export const DEFAULT_PRICES: Readonly<Record<string, ModelPrice>> = Object.freeze({
  // OpenAI
  "gpt-5*": { input: 1.25, cachedInput: 0.125, output: 10 },
  "gpt-5-mini*": { input: 0.25, cachedInput: 0.025, output: 2 },
  "gpt-5-nano*": { input: 0.05, cachedInput: 0.005, output: 0.4 },
  "gpt-4.1*": { input: 2, cachedInput: 0.5, output: 8 },
  "gpt-4.1-mini*": { input: 0.4, cachedInput: 0.1, output: 1.6 },
  "gpt-4.1-nano*": { input: 0.1, cachedInput: 0.025, output: 0.4 },
  "gpt-4o*": { input: 2.5, cachedInput: 1.25, output: 10 },
  "gpt-4o-mini*": { input: 0.15, cachedInput: 0.075, output: 0.6 },
  "gpt-4-turbo*": { input: 10, output: 30 },
  "gpt-3.5-turbo*": { input: 0.5, output: 1.5 },
  "o1*": { input: 15, cachedInput: 7.5, output: 60 },
  "o1-mini*": { input: 1.1, cachedInput: 0.55, output: 4.4 },
  "o3*": { input: 2, cachedInput: 0.5, output: 8 },
  "o3-mini*": { input: 1.1, cachedInput: 0.55, output: 4.4 },
  "o4-mini*": { input: 1.1, cachedInput: 0.275, output: 4.4 },
  // Anthropic (cachedInput: cache reads)
  "claude-opus-4*": { input: 15, cachedInput: 1.5, output: 75 },
  "claude-opus-4-5*": { input: 5, cachedInput: 0.5, output: 25 },
  "claude-sonnet-4*": { input: 3, cachedInput: 0.3, output: 15 },
  "claude-haiku-4-5*": { input: 1, cachedInput: 0.1, output: 5 },
  "claude-3-7-sonnet*": { input: 3, cachedInput: 0.3, output: 15 },
  "claude-3-5-sonnet*": { input: 3, cachedInput: 0.3, output: 15 },
  "claude-3-5-haiku*": { input: 0.8, cachedInput: 0.08, output: 4 },
  "claude-3-opus*": { input: 15, cachedInput: 1.5, output: 75 },
  "claude-3-haiku*": { input: 0.25, cachedInput: 0.03, output: 1.25 },
});

/** The table prices are looked up in: the configured entries over the built-in ones. */
export function priceTable(configured: Readonly<Record<string, ModelPrice>> = {}): Record<string, ModelPrice> {
  return { ...DEFAULT_PRICES, ...configured };
}

/**
 * The price of a model id, or null when the table has none ("no price"). An exact key wins;
 * otherwise the longest prefix key (`gpt-4o-mini*` before `gpt-4o*`). Ids compare case-insensitively.
 */
export function priceFor(modelId: string | null | undefined, table: Readonly<Record<string, ModelPrice>>): ModelPrice | null {
  if (!modelId) return null;
  const id = modelId.toLowerCase();
  let best: { length: number; price: ModelPrice } | null = null;
  for (const [key, price] of Object.entries(table)) {
    const k = key.toLowerCase();
    if (!k.endsWith("*")) {
      if (k === id) return price;
      continue;
    }
    const prefix = k.slice(0, -1);
    if (id.startsWith(prefix) && (!best || prefix.length > best.length)) best = { length: prefix.length, price };
  }
  return best?.price ?? null;
}

/** The token counts a run's cost is computed from (Agno's RunMetrics names). */
export interface PricedTokens {
  input_tokens?: number | null;
  output_tokens?: number | null;
  cache_read_tokens?: number | null;
}

/**
 * USD for one run's tokens at a price: input tokens read from the provider's cache at the cached
 * price (the input price when the table gives none), the rest of the input at the input price,
 * output (reasoning included, as providers count it) at the output price. Input counts include
 * cached tokens, as the AI SDK reports them. Rounded to 1e-10 USD so sums do not drift.
 */
export function tokensCost(tokens: PricedTokens, price: ModelPrice): number {
  const input = Math.max(0, Number(tokens.input_tokens) || 0);
  const cached = Math.min(input, Math.max(0, Number(tokens.cache_read_tokens) || 0));
  const output = Math.max(0, Number(tokens.output_tokens) || 0);
  const usd = ((input - cached) * price.input + cached * (price.cachedInput ?? price.input) + output * price.output) / 1_000_000;
  return Math.round(usd * 1e10) / 1e10;
}

/** A run's cost from the price table, or undefined for a model it has no price for (the run then stores no cost). */
export function runCost(run: { model: string | null | undefined; metrics: PricedTokens | null | undefined }, configured: Readonly<Record<string, ModelPrice>> = {}): number | undefined {
  const price = priceFor(run.model, priceTable(configured));
  if (!price || !run.metrics) return undefined;
  return tokensCost(run.metrics, price);
}
