import { z } from "zod";
import type { Principal } from "../../auth/principal.ts";
import { ConflictError, NotFoundError, PermissionError } from "../../errors/domain-errors.ts";
import { deleteLearning, getLearning, updateLearning, type LearningRow } from "../../db/learnings/learnings.ts";
import type { Db } from "../../db/open-database.ts";
import type { DataScope } from "../../db/scope.ts";
import { knowledgeBasesOf } from "../../knowledge/knowledge-bases.ts";
import { forgetUser } from "../../learning/forget.ts";
import { decodeJsonText, unsafeTextIn } from "../input-text.ts";
import { defineDashboardAction, type ActionState } from "./action.ts";
import { learningVersion } from "./learnings-view.ts";

/**
 * The "What agents know" page's actions, open to every signed-in user. Each derives its scope
 * from the caller's principal (never from a user id in the form): a member changes only its own
 * learnings — another user's is "not found", exactly like one that does not exist — and never a
 * shared (owner-less) one, which is an admin's to change (403). An edit form carries the version
 * it showed; a learning changed since (by an agent, another tab) is refused with a 409 rather
 * than overwritten.
 */
const LEARNINGS_PAGE = "/dashboard/learnings";

const SHARED_IS_ADMINS = "Shared learnings belong to no user: only admins can change or delete them.";
const CHANGED = "This learning changed since the page showed it (an agent may have updated it): reload the page and edit it again.";

const LearningId = z.string({ error: "say which learning" }).min(1, "say which learning");
const Version = z.string().optional();
const MemoryId = z.string({ error: "say which memory" }).min(1, "say which memory");
const MemoryText = z.string({ error: "write the memory's text" }).trim().min(1, "write the memory's text").max(4000, "keep the memory under 4000 characters");
const ProfileField = (what: string) =>
  z
    .string()
    .trim()
    .max(200, `keep the ${what} under 200 characters`)
    .optional()
    .transform((value) => value || null);

const KIND_NAMES: Record<string, string> = { user_profile: "profile", user_memory: "memories" };

const notFound = (learningId: string, type?: string) => new NotFoundError(`${type ? `No ${KIND_NAMES[type] ?? type}` : "No learning"} ${learningId} was found (it may have been deleted).`);

/**
 * The learning a form names, if the caller may change it: in the caller's scope (else not
 * found), of `type` when given, not a shared one unless the caller is an admin (403), and at the
 * version the form showed (409).
 */
async function changeableLearning(
  { db, scope, principal }: { db: Db; scope: DataScope; principal: Principal },
  { learningId, version, type }: { learningId: string; version?: string; type?: string },
): Promise<LearningRow> {
  const row = await getLearning(db, { scope, learningId });
  if (!row || (type !== undefined && row.learning_type !== type)) throw notFound(learningId, type);
  // The scope refuses it too (a member's scope writes only its own rows); saying why is kinder than "not found".
  if (row.user_id === null && !principal.isAdmin) throw new PermissionError(SHARED_IS_ADMINS);
  if (version && version !== learningVersion(row)) throw new ConflictError(CHANGED);
  return row;
}

/** Replaces a learning's content, within the scope (one UPDATE: a learning deleted meanwhile stays deleted). */
async function saveContent(db: Db, scope: DataScope, row: LearningRow, content: Record<string, unknown>): Promise<void> {
  // Only over the version read: an agent's write in between is a 409, never overwritten.
  const saved = await updateLearning(db, { scope, learningId: row.learning_id, content, ifVersion: row.updated_at ?? row.created_at });
  if (saved) return;
  throw (await getLearning(db, { scope, learningId: row.learning_id })) ? new ConflictError(CHANGED) : notFound(row.learning_id);
}

type MemoryEntry = { id?: unknown; content?: unknown; [key: string]: unknown };

/** The memory list a form names, if the caller may change it (changeableLearning), holding the memory it names (else not found). */
async function memoryListWith(
  context: { db: Db; scope: DataScope; principal: Principal },
  input: { learningId: string; version?: string; memoryId: string },
): Promise<{ row: LearningRow; memories: MemoryEntry[] }> {
  const row = await changeableLearning(context, { ...input, type: "user_memory" });
  const memories = Array.isArray(row.content.memories) ? (row.content.memories as MemoryEntry[]) : [];
  if (!memories.some((m) => m.id === input.memoryId)) throw new NotFoundError(`Memory ${input.memoryId} was not found (it may have been deleted).`);
  return { row, memories };
}

export const updateLearningProfileAction = defineDashboardAction({
  name: "updateLearningProfile",
  access: "signed-in",
  input: z.object({ learningId: LearningId, version: Version, name: ProfileField("name"), preferred_name: ProfileField("preferred name") }),
  revalidate: LEARNINGS_PAGE,
  async handler({ input, scope, db, principal }) {
    const row = await changeableLearning({ db, scope, principal }, { ...input, type: "user_profile" });
    // The profile's other fields (custom ones included) stay as they are.
    await saveContent(db, scope, row, { ...row.content, name: input.name, preferred_name: input.preferred_name, updated_at: new Date().toISOString() });
    return { ok: true, message: "Profile saved." };
  },
});

export const updateLearningMemoryAction = defineDashboardAction({
  name: "updateLearningMemory",
  access: "signed-in",
  input: z.object({ learningId: LearningId, version: Version, memoryId: MemoryId, memory: MemoryText }),
  revalidate: LEARNINGS_PAGE,
  async handler({ input, scope, db, principal }) {
    const { row, memories } = await memoryListWith({ db, scope, principal }, input);
    const now = new Date().toISOString();
    const edited = memories.map((m) => (m.id === input.memoryId ? { ...m, content: input.memory, updated_at: now } : m));
    await saveContent(db, scope, row, { ...row.content, memories: edited, updated_at: now });
    return { ok: true, message: "Memory saved." };
  },
});

export const deleteLearningMemoryAction = defineDashboardAction({
  name: "deleteLearningMemory",
  access: "signed-in",
  input: z.object({ learningId: LearningId, memoryId: MemoryId }),
  revalidate: LEARNINGS_PAGE,
  async handler({ input, scope, db, principal }) {
    const { row, memories } = await memoryListWith({ db, scope, principal }, input);
    await saveContent(db, scope, row, { ...row.content, memories: memories.filter((m) => m.id !== input.memoryId), updated_at: new Date().toISOString() });
    return { ok: true, message: "Memory deleted." };
  },
});

/** The lists a learning's content keeps (Agno's shapes): each must stay a list, and a memory an object with its text. */
function contentProblem(type: string, content: Record<string, unknown>): string | null {
  for (const list of ["memories", "facts", "events", "relationships", "plan", "progress", "alternatives", "tags"]) {
    if (list in content && content[list] !== null && !Array.isArray(content[list])) return `"${list}" must be a list`;
  }
  if (type === "user_memory") {
    const bad = ((content.memories as unknown[] | undefined) ?? []).findIndex((m) => !m || typeof m !== "object" || typeof (m as MemoryEntry).content !== "string");
    if (bad >= 0) return `memories[${bad}] must be an object with its text in "content"`;
  }
  return null;
}

/** The content field as a JSON object, or what is wrong with it. */
function parseContent(type: string, text: string): { content: Record<string, unknown> } | { error: ActionState } {
  const refuse = (error: string): { error: ActionState } => ({ error: { ok: false, status: 422, error: `content: ${error}` } });
  const decoded = decodeJsonText(text);
  if (!decoded.ok) return refuse(decoded.message);
  const value = decoded.value;
  if (value === null || typeof value !== "object" || Array.isArray(value)) return refuse("must be a JSON object ({ … })");
  // What storage cannot hold the same on both dialects (a NUL, a lone surrogate) may hide in a JSON escape.
  const [unsafe] = unsafeTextIn(value);
  if (unsafe) return refuse(`${unsafe.path.join(".") || "a value"} ${unsafe.message}`);
  const problem = contentProblem(type, value as Record<string, unknown>);
  return problem ? refuse(problem) : { content: value as Record<string, unknown> };
}

export const updateLearningContentAction = defineDashboardAction({
  name: "updateLearningContent",
  access: "signed-in",
  input: z.object({ learningId: LearningId, version: Version, content: z.string({ error: "write the content as a JSON object" }).trim().min(1, "write the content as a JSON object") }),
  revalidate: LEARNINGS_PAGE,
  async handler({ input, scope, db, principal }) {
    const row = await changeableLearning({ db, scope, principal }, input);
    const parsed = parseContent(row.learning_type, input.content);
    if ("error" in parsed) return parsed.error;
    await saveContent(db, scope, row, parsed.content);
    return { ok: true, message: "Saved." };
  },
});

export const deleteLearningAction = defineDashboardAction({
  name: "deleteLearning",
  access: "signed-in",
  input: z.object({ learningId: LearningId }),
  revalidate: LEARNINGS_PAGE,
  async handler({ input, scope, db, principal }) {
    await changeableLearning({ db, scope, principal }, input);
    if (!(await deleteLearning(db, { scope, learningId: input.learningId }))) throw notFound(input.learningId);
    return { ok: true, message: "Deleted." };
  },
});

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

export const forgetEverythingAction = defineDashboardAction({
  name: "forgetEverything",
  access: "signed-in",
  input: z.object({ userId: z.string().trim().optional() }),
  revalidate: LEARNINGS_PAGE,
  // An admin may name a user (the page's user filter); a member always forgets itself, whatever the form says.
  actFor: (input, principal) => input.userId || principal.userId,
  async handler({ scope, db, principal, settings }) {
    const userId = scope.userId;
    if (!userId) return { ok: false, status: 422, error: "userId: say whose learnings to forget" };
    // Their learned knowledge (namespace `user`) lives in the knowledge bases: every one the OS serves.
    const forgotten = await forgetUser(db, { scope, userId, knowledgeBases: knowledgeBasesOf(db, settings).values() });
    const who = userId === principal.userId ? "you" : userId;
    return {
      ok: true,
      message: `Agents forgot everything they learned about ${who}: ${plural(forgotten.learnings, "learning", "learnings")}, ${plural(forgotten.memories, "memory", "memories")} and ${plural(forgotten.learnedKnowledge, "learned insight", "learned insights")} deleted.`,
    };
  },
});
