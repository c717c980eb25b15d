import { z } from "zod";
import type { ResolvedStore, UserProfileConfig } from "../../config/learning-config.ts";
import { getLearning, userProfileLearningId } from "../../db/index.ts";
import type { ExtractionTool } from "../../runtime/memory/extraction.ts";
import { defineTool, type ToolDefinition } from "../../runtime/tools/types.ts";
import { changeOwnRow, extractFor, isoNow, toolUser, userLearningScope, type LearningRun } from "../learning-run.ts";

/** Agno's UserProfile content: who the user is, in fields (`user_profile_<user_id>`). */
export interface UserProfile {
  user_id: string;
  name: string | null;
  preferred_name: string | null;
  agent_id: string | null;
  team_id: string | null;
  created_at: string | null;
  updated_at: string | null;
  [custom: string]: unknown;
}

/** The fields the model may set, with what each means. */
const PROFILE_FIELDS = { name: "The user's full name", preferred_name: "How the user likes to be addressed" } as const;
const ProfileUpdate = z.object({ name: z.string().min(1).optional().describe(PROFILE_FIELDS.name), preferred_name: z.string().min(1).optional().describe(PROFILE_FIELDS.preferred_name) });

/** The user profile store (Agno's UserProfileStore): `always` extracts it from each run's input; `agentic` gives the agent `update_profile`. */
export class UserProfileStore {
  readonly learningType = "user_profile";
  constructor(readonly store: ResolvedStore<UserProfileConfig>) {}

  async get(run: Pick<LearningRun, "db">, userId: string): Promise<UserProfile | undefined> {
    const row = await getLearning(run.db, { scope: userLearningScope(userId), learningId: userProfileLearningId(userId) });
    return row ? (row.content as UserProfile) : undefined;
  }

  /** Merges `fields` into the user's profile (a field given as "" is cleared); the profile as saved. */
  async update(run: LearningRun, userId: string, fields: Partial<Record<keyof typeof PROFILE_FIELDS, string>>): Promise<UserProfile> {
    const saved = await changeOwnRow(run, userId, { learningId: userProfileLearningId(userId), learningType: this.learningType, agentId: run.agentId, teamId: run.teamId }, (current) => {
      const existing = current as UserProfile | undefined;
      const now = isoNow();
      const profile: UserProfile = {
        user_id: userId,
        name: null,
        preferred_name: null,
        ...existing,
        agent_id: run.agentId,
        team_id: run.teamId,
        created_at: existing?.created_at ?? now,
        updated_at: now,
      };
      for (const [key, value] of Object.entries(fields)) if (value !== undefined) profile[key] = value.trim() || null;
      return profile;
    });
    return saved as UserProfile;
  }

  /** `always` mode: the model reads the run's conversation and updates the profile through `update_profile`. */
  async extract(run: LearningRun, conversation: string): Promise<void> {
    if (!run.userId || !conversation.trim()) return;
    const userId = run.userId;
    const existing = await this.get(run, userId);
    const tools: ExtractionTool[] = [
      {
        name: "update_profile",
        description: "Set fields of the user's profile that the conversation states plainly.",
        parameters: ProfileUpdate,
        execute: async (args) => {
          await this.update(run, userId, args as Record<string, string>);
          return "Profile updated";
        },
      },
    ];
    await extractFor(run, {
      system:
        "You maintain a user's profile: their name and how they like to be addressed. Call update_profile only for what the " +
        "user states about themselves in the conversation; change nothing otherwise.\n\n" +
        `Current profile:\n${describe(existing) || "(empty)"}` +
        (this.store.config.additionalInstructions ? `\n\n${this.store.config.additionalInstructions}` : ""),
      prompt: `Extract profile information from this conversation:\n\n${conversation}`,
      tools,
    });
  }

  /** The agent's tool in `agentic` mode (or with `enableAgentTools`). */
  tools(run: LearningRun): ToolDefinition<unknown>[] {
    const userId = toolUser(run, this.store);
    if (!userId) return [];
    return [
      defineTool({
        name: "update_profile",
        description: `Update the user's profile. Fields: ${Object.entries(PROFILE_FIELDS)
          .map(([k, v]) => `${k} (${v})`)
          .join(", ")}.`,
        parameters: ProfileUpdate,
        execute: async (args) => {
          const saved = await this.update(run, userId, args as Record<string, string>);
          return `Profile updated: ${describe(saved)}`;
        },
      }) as ToolDefinition<unknown>,
    ];
  }

  /** The profile as a system-prompt section ("" when there is nothing and no tool to add it). */
  async context(run: LearningRun): Promise<string> {
    if (!run.userId) return "";
    const profile = await this.get(run, run.userId);
    const lines = describe(profile);
    const withTools = this.store.mode === "agentic" || !!this.store.config.enableAgentTools;
    if (!lines) return withTools ? "<user_profile>\nNo profile information saved about this user yet.\n</user_profile>" : "";
    return `<user_profile>\n${lines}\n\nUse this naturally to personalize your answer; the current conversation takes precedence.\n</user_profile>`;
  }
}

/** `Name: Ada` lines of the fields a profile has. */
function describe(profile: UserProfile | undefined): string {
  if (!profile) return "";
  return Object.keys(PROFILE_FIELDS)
    .filter((key) => typeof profile[key] === "string" && profile[key])
    .map((key) => `${key.replace(/_/g, " ").replace(/\b\w/g, (c) => c.toUpperCase())}: ${String(profile[key])}`)
    .join("\n");
}
