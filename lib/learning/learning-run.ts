import type { LanguageModel, LanguageModelUsage } from "ai";
import type { ResolvedLearning, ResolvedStore } from "../config/learning-config.ts";
import type { Db } from "../db/open-database.ts";
import type { KnowledgeBase } from "../knowledge/knowledge-base.ts";
import { unsafeSystemScope, type DataScope } from "../db/scope.ts";
import { getLearning, replaceLearning, upsertLearning, type LearningInput } from "../db/index.ts";
import { runExtraction, type ExtractionTool } from "../runtime/memory/extraction.ts";

/** What a store works with for one run: the run's user, session and component, and its model. */
export interface LearningRun {
  readonly db: Db;
  readonly model: LanguageModel;
  readonly learning: ResolvedLearning;
  /** The run's owner; null for a run without a user (user-scoped stores then do nothing). */
  readonly userId: string | null;
  readonly sessionId: string;
  /** An agent's run: the agent; a team's: null (its `teamId` is set). */
  readonly agentId: string | null;
  readonly teamId: string | null;
  /** The agent's knowledge base (learned knowledge is stored in it); undefined when it has none. */
  readonly knowledge?: KnowledgeBase;
  /** The user's message of the run ("" when none). */
  readonly input: string;
  readonly signal: AbortSignal;
  /** Receives the usage of model calls the stores' tools make (the run adds it to its metrics). */
  readonly onUsage: (usage: LanguageModelUsage) => void;
}

/** The scope a store reads and writes a user's own learnings with: that user's. */
export function userLearningScope(userId: string): DataScope {
  return unsafeSystemScope("the run's learning machine reads and writes its own user's learnings", { actingAs: userId });
}

/**
 * The scope shared learnings (no owner: an entity in namespace `global` or a custom one) are
 * written with. A run has no admin behind it, yet the agent must record what every user of it
 * shares: the runtime writes those rows on the system's behalf. Users read them; only admins
 * change or delete them through the API.
 */
export function unsafeSharedLearningScope(): DataScope {
  return unsafeSystemScope("the learning machine writes shared (owner-less) learnings on the system's behalf", { actingAs: null });
}

/** Agno's timestamps inside a learning's content: ISO 8601 in UTC with a `Z`. */
export function isoNow(): string {
  return new Date().toISOString();
}

/** A short random id for an item inside a learning (a memory, a fact): 8 hex digits, as Agno's. */
export function itemId(): string {
  return crypto.randomUUID().replace(/-/g, "").slice(0, 8);
}

/** The conversation as text for an extraction prompt: one `role: text` line per message with text. */
export function conversationText(messages: readonly { role: string; text: string }[]): string {
  return messages
    .filter((m) => (m.role === "user" || m.role === "assistant") && m.text.trim())
    .map((m) => `${m.role === "user" ? "User" : "Assistant"}: ${m.text.trim()}`)
    .join("\n");
}

/** Runs one extraction for a store (lib/runtime/memory/extraction.ts), at most `maxToolCalls` (default the machine's `maxUpdatesPerRun`) tool calls; its usage goes to the run. */
export async function extractFor(
  run: LearningRun,
  { system, prompt, tools, maxToolCalls }: { system: string; prompt: string; tools: readonly ExtractionTool[]; maxToolCalls?: number },
): Promise<void> {
  const { usage } = await runExtraction({ model: run.model, system, prompt, tools, maxToolCalls: maxToolCalls ?? run.learning.maxUpdatesPerRun, signal: run.signal });
  run.onUsage(usage);
}

/** The run's user when a user-scoped store offers the agent its tools (`agentic` mode, or `enableAgentTools`); undefined otherwise. */
export function toolUser(run: LearningRun, store: ResolvedStore<{ enableAgentTools?: boolean }>): string | undefined {
  return run.userId && (store.mode === "agentic" || store.config.enableAgentTools) ? run.userId : undefined;
}

/**
 * Where a namespaced store (entities, learned knowledge) reads and writes for a run: in namespace
 * `user` the run's user's own items (undefined without a user: such a store records nothing), in
 * any other namespace the shared, owner-less ones.
 */
export function namespaceOwner(namespace: string, run: LearningRun): { scope: DataScope; userId: string | null } | undefined {
  if (namespace === "user") return run.userId ? { scope: userLearningScope(run.userId), userId: run.userId } : undefined;
  return { scope: unsafeSharedLearningScope(), userId: null };
}

const CAS_ATTEMPTS = 8;

/**
 * A read-modify-write of one of the user's own rows (their profile, their memory list) that
 * loses no concurrent change: `apply` gets the content as stored now (undefined: no row) and
 * returns the new content (undefined: nothing to change); the write happens only over what was
 * read (replaceLearning), else it reads again and re-applies. Two runs of one user learning at
 * once each keep what they learned. Returns the content written, or undefined.
 */
export async function changeOwnRow(
  run: Pick<LearningRun, "db">,
  userId: string,
  learning: Omit<LearningInput, "content" | "userId">,
  apply: (current: Record<string, unknown> | undefined) => Record<string, unknown> | undefined,
): Promise<Record<string, unknown> | undefined> {
  const scope = userLearningScope(userId);
  for (let attempt = 1; ; attempt++) {
    const row = await getLearning(run.db, { scope, learningId: learning.learningId });
    const next = apply(row?.content);
    if (!next) return undefined;
    const input = { ...learning, userId, content: next };
    // A row whose stored text cannot be matched (written by another program in another form) is
    // never matched: after the attempts, the change is written over it, as a plain upsert would.
    if (attempt === CAS_ATTEMPTS) return (await upsertLearning(run.db, { scope, learning: input })).content;
    if (await replaceLearning(run.db, { scope, learning: input, expected: row ? row.content : null })) return next;
  }
}
