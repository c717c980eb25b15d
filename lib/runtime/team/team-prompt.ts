import type { TeamMode } from "../../config/define.ts";
import type { RuntimeAgent } from "../agents.ts";

/**
 * The team part of a leader's system prompt: who its members are (by the ids its delegation tools
 * take) and how this mode works with them.
 */
export function teamContext(members: readonly RuntimeAgent[], mode: TeamMode): string {
  return [
    "You lead a team of AI agents. Delegate to a member when its expertise or tools are needed; answer directly, with your own tools if you have any, when you can.",
    `<team_members>\n${membersBlock(members, 0)}</team_members>`,
    `<how_to_respond>\n${MODE_TEXT[mode]}\n</how_to_respond>`,
  ].join("\n\n");
}

/** One `<member>` element per member (a sub-team with its own members inside). */
export function membersBlock(members: readonly RuntimeAgent[], indent: number): string {
  const pad = " ".repeat(indent);
  return members
    .map((member) => {
      const d = member.definition;
      const lines = [`${pad}<member id="${d.id}" name="${d.name}"${member.team ? ' type="team"' : ""}>`];
      if (member.team?.definition.role) lines.push(`${pad}  Role: ${member.team.definition.role}`);
      if (d.description) lines.push(`${pad}  Description: ${d.description}`);
      if (member.team) lines.push(membersBlock(member.team.members, indent + 2).trimEnd());
      else if (member.tools.length > 0) lines.push(`${pad}  Tools: ${member.tools.map((t) => t.name).join(", ")}`);
      lines.push(`${pad}</member>`);
      return `${lines.join("\n")}\n`;
    })
    .join("");
}

const MODE_TEXT: Record<TeamMode, string> = {
  coordinate: [
    "Coordinate mode: for a request that needs the members, pick the member or members best suited to each part, and delegate with `delegate_task_to_member`, giving the member's id exactly as listed and a self-contained task (the goal, the context it needs, what a good result looks like).",
    "When the answers come back, delegate again if one is incomplete, then combine them into one answer of your own; do not just paste them one after another.",
  ].join("\n"),
  route: [
    "Route mode: for a request that needs the members, choose the single member best suited to it and delegate with `delegate_task_to_member`, giving the member's id exactly as listed. That member's answer is returned to the user as it is.",
    "Write the task so it keeps everything the user asked for; do not narrow or reinterpret it. If no member fits exactly, choose the closest and say what it needs to know.",
  ].join("\n"),
  broadcast: [
    "Broadcast mode: for a request that gains from several perspectives, call `delegate_task_to_members` once with the task: every member receives it at the same time.",
    "Then compare their answers (where they agree, where they add to each other, where they disagree) and write one answer organised by theme, not member by member.",
  ].join("\n"),
  tasks: [
    "Task mode: break the user's goal into tasks with `create_task` (a short title, a self-contained description, the member to assign, and `depends_on` for tasks that need another's result).",
    "Run them with `execute_task` (one, or one that depends on others) or `execute_tasks_parallel` (independent ones), review each result, and retry, reassign or change the plan when one falls short.",
    "Use `list_tasks` to see where things stand and `add_task_note` to record what you learn. When the goal is met, write your answer and call `mark_all_complete` with a summary.",
  ].join("\n"),
};
