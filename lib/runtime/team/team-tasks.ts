import { randomUUID } from "node:crypto";
import { z } from "zod";
import type { TeamLeader } from "../agents.ts";
import type { AgnoMessage } from "../run-output.ts";
import { emitNamed, now, type RunState } from "../run-state.ts";
import { defineTool, type ToolDefinition } from "../tools/types.ts";

/**
 * Tasks mode: the leader plans a task list and works through it, delegating each task to a
 * member. The list lives in the session state under `_team_tasks` (as in Agno), so it outlasts
 * the run and the next run of the session sees it; `afterAnswer` sends the leader back to work
 * (with the list's state) until the goal is marked complete, every task has ended, or
 * `maxIterations` answers were given.
 */
export type TaskStatus = "pending" | "in_progress" | "completed" | "failed" | "cancelled" | "blocked";

export interface Task {
  id: string;
  title: string;
  description: string;
  status: TaskStatus;
  assignee: string | null;
  parent_id: string | null;
  dependencies: string[];
  result: string | null;
  notes: string[];
  created_at: number;
}

export interface TaskList {
  tasks: Task[];
  goal_complete: boolean;
  completion_summary: string | null;
}

export const TASKS_KEY = "_team_tasks";
const SETTABLE = ["pending", "in_progress", "completed", "failed"] as const;
const ENDED: ReadonlySet<TaskStatus> = new Set(["completed", "failed", "cancelled"]);

/** The run's task list, from its session state (made if absent or not a list this runtime wrote). */
export function taskListOf(state: RunState): TaskList {
  const sessionState = (state.output.session_state ??= {});
  const stored = sessionState[TASKS_KEY] as Partial<TaskList> | undefined;
  if (!stored || !Array.isArray(stored.tasks)) sessionState[TASKS_KEY] = { tasks: [], goal_complete: false, completion_summary: null } satisfies TaskList;
  return sessionState[TASKS_KEY] as TaskList;
}

/** Blocked, failed and cancelled follow from dependencies: a task waits while one is unfinished, fails or is cancelled with it. */
function settleDependencies(list: TaskList): void {
  const byId = new Map(list.tasks.map((t) => [t.id, t]));
  for (let changed = true; changed; ) {
    changed = false;
    for (const task of list.tasks) {
      if (ENDED.has(task.status) || task.status === "in_progress") continue;
      const deps = task.dependencies.map((id) => byId.get(id));
      let next: TaskStatus = "pending";
      if (deps.some((d) => d?.status === "failed")) {
        next = "failed";
        task.result = "Automatically failed: a dependency failed.";
      } else if (deps.some((d) => d?.status === "cancelled")) {
        next = "cancelled";
        task.result = "Automatically cancelled: a dependency was cancelled.";
      } else if (deps.some((d) => !d || d === task || d.status !== "completed")) next = "blocked";
      if (next !== task.status) {
        task.status = next;
        changed = true;
      }
    }
  }
}

/** The list as the leader reads it. */
export function taskSummary(list: TaskList): string {
  if (list.tasks.length === 0) return "No tasks created yet.";
  const count = (status: TaskStatus) => list.tasks.filter((t) => t.status === status).length;
  const lines = [`Tasks (${list.tasks.length} total: ${count("pending")} pending, ${count("completed")} completed):`];
  for (const task of list.tasks) {
    lines.push(`  [${task.id}] ${task.title} - ${task.status.toUpperCase()} (assigned: ${task.assignee ?? "unassigned"})`);
    if (task.dependencies.length > 0) lines.push(`      Depends on: [${task.dependencies.join(", ")}]`);
    if (task.result) lines.push(`      Result: ${task.result.length > 200 ? `${task.result.slice(0, 200)}…` : task.result}`);
    for (const note of task.notes.slice(-3)) lines.push(`      Note: ${note}`);
  }
  if (list.goal_complete) lines.push(`\nGoal marked complete: ${list.completion_summary ?? ""}`);
  return lines.join("\n");
}

const taskData = (t: Task) => ({ id: t.id, title: t.title, description: t.description, status: t.status, assignee: t.assignee, dependencies: t.dependencies, result: t.result });

function stateUpdated(state: RunState, list: TaskList): void {
  emitNamed(state, "TeamTaskStateUpdated", {
    task_summary: taskSummary(list),
    goal_complete: list.goal_complete,
    tasks: list.tasks.map(taskData),
    completion_summary: list.completion_summary,
  });
}

function setStatus(state: RunState, list: TaskList, task: Task, status: TaskStatus, result?: string | null): void {
  const previous = task.status;
  task.status = status;
  if (result !== undefined) task.result = result;
  settleDependencies(list);
  emitNamed(state, "TeamTaskUpdated", {
    task_id: task.id,
    title: task.title,
    status: task.status,
    previous_status: previous,
    ...(status === "completed" || status === "failed" ? { result: task.result } : {}),
    assignee: task.assignee,
  });
}

/** Runs a member on a task; what the run came to, for the task and for the leader. */
export type RunTaskMember = (memberId: string, task: string) => Promise<{ found: false } | { found: true; name: string; status: string; content: string }>;

/** The task tools and what the leader is told each does (also listed by GET /teams/{team_id}). */
export const TASK_TOOL_DESCRIPTIONS = {
  create_task: "Create a new task for the team to work on.",
  update_task_status: "Update the status of a task. Use this to mark tasks you handle yourself as completed.",
  list_tasks: "List all tasks with their current status, assignees, and dependencies.",
  add_task_note: "Add a note to a task for tracking progress or communicating context.",
  mark_all_complete: "Signal that the overall goal has been achieved. Call this when all tasks are done.",
  execute_task: "Execute a task by delegating it to a team member. The member receives the task's description and returns a result.",
  execute_tasks_parallel: "Execute several independent tasks at once, each by its assigned member. Every task must be pending with no unfinished dependency.",
} as const;

/** The leader's seven task tools, over the run's task list. */
export function taskTools(state: RunState, runMember: RunTaskMember, membersList: () => string): ToolDefinition<unknown>[] {
  const find = (id: string) => taskListOf(state).tasks.find((t) => t.id === id);
  const notFound = (id: string) => `Task with ID '${id}' not found.`;
  const execute = async (task: Task, memberId: string): Promise<string> => {
    const list = taskListOf(state);
    if (task.status !== "pending" && task.status !== "in_progress") return `Task [${task.id}] is ${task.status} and cannot be executed.`;
    task.assignee = memberId;
    setStatus(state, list, task, "in_progress");
    const outcome = await runMember(memberId, task.description || task.title);
    if (!outcome.found) {
      setStatus(state, list, task, "pending");
      return `Member with ID ${memberId} not found. Available members:\n${membersList()}`;
    }
    if (outcome.status === "PAUSED") {
      setStatus(state, list, task, "pending");
      return `Member '${outcome.name}' requires human input before continuing. Task [${task.id}] paused.`;
    }
    if (outcome.status !== "COMPLETED") {
      setStatus(state, list, task, "failed", outcome.content);
      return `Task [${task.id}] failed: ${outcome.content}`;
    }
    setStatus(state, list, task, "completed", outcome.content);
    return outcome.content ? `Task [${task.id}] completed. Result: ${outcome.content}` : `Task [${task.id}] completed with no content.`;
  };
  return [
    defineTool({
      name: "create_task",
      description: TASK_TOOL_DESCRIPTIONS.create_task,
      parameters: z.object({
        title: z.string().describe("A short, actionable title for the task."),
        description: z.string().default("").describe("What needs to be done, self-contained."),
        assignee: z.string().default("").describe("The member_id to assign this task to."),
        depends_on: z.array(z.string()).nullish().describe("IDs of the tasks that must complete before this one can start."),
      }),
      execute: ({ title, description, assignee, depends_on }) => {
        const list = taskListOf(state);
        const same = list.tasks.find((t) => t.title.trim().toLowerCase() === title.trim().toLowerCase());
        if (same) return `Task already exists: [${same.id}] ${same.title} (status: ${same.status}). Use this task instead of creating a duplicate.`;
        const task: Task = {
          id: randomUUID().slice(0, 8),
          title,
          description,
          status: "pending",
          assignee: assignee || null,
          parent_id: null,
          dependencies: depends_on ?? [],
          result: null,
          notes: [],
          created_at: Date.now() / 1000,
        };
        list.tasks.push(task);
        settleDependencies(list);
        emitNamed(state, "TeamTaskCreated", { task_id: task.id, title, description, assignee: task.assignee, status: task.status, dependencies: task.dependencies });
        stateUpdated(state, list);
        return `Task created: [${task.id}] ${title} (status: ${task.status})`;
      },
    }) as ToolDefinition<unknown>,
    defineTool({
      name: "update_task_status",
      description: TASK_TOOL_DESCRIPTIONS.update_task_status,
      parameters: z.object({
        task_id: z.string(),
        status: z.string().describe("New status. One of: pending, in_progress, completed, failed."),
        result: z.string().nullish().describe("The result or outcome of the task (when completing)."),
      }),
      execute: ({ task_id, status, result }) => {
        if (status === "blocked") return "Cannot manually set status to 'blocked'. Blocked status is managed automatically based on task dependencies.";
        if (!(SETTABLE as readonly string[]).includes(status)) return `Invalid status '${status}'. Must be one of: ${SETTABLE.join(", ")}.`;
        const task = find(task_id);
        if (!task) return notFound(task_id);
        const list = taskListOf(state);
        setStatus(state, list, task, status as TaskStatus, result ?? undefined);
        stateUpdated(state, list);
        return `Task [${task.id}] '${task.title}' updated to ${task.status}.`;
      },
    }) as ToolDefinition<unknown>,
    defineTool({
      name: "list_tasks",
      description: TASK_TOOL_DESCRIPTIONS.list_tasks,
      parameters: z.object({}),
      execute: () => taskSummary(taskListOf(state)),
    }) as ToolDefinition<unknown>,
    defineTool({
      name: "add_task_note",
      description: TASK_TOOL_DESCRIPTIONS.add_task_note,
      parameters: z.object({ task_id: z.string(), note: z.string() }),
      execute: ({ task_id, note }) => {
        const task = find(task_id);
        if (!task) return notFound(task_id);
        task.notes.push(note);
        return `Note added to task [${task.id}].`;
      },
    }) as ToolDefinition<unknown>,
    defineTool({
      name: "mark_all_complete",
      description: TASK_TOOL_DESCRIPTIONS.mark_all_complete,
      parameters: z.object({ summary: z.string().describe("A summary of the work done and the final outcome.") }),
      execute: ({ summary }) => {
        const list = taskListOf(state);
        list.goal_complete = true;
        list.completion_summary = summary;
        stateUpdated(state, list);
        return `Goal marked as complete. Summary: ${summary}`;
      },
    }) as ToolDefinition<unknown>,
    defineTool({
      name: "execute_task",
      description: TASK_TOOL_DESCRIPTIONS.execute_task,
      parameters: z.object({ task_id: z.string(), member_id: z.string().describe("The ID of the member to execute the task.") }),
      execute: async ({ task_id, member_id }) => {
        const task = find(task_id);
        if (!task) return notFound(task_id);
        const answer = await execute(task, member_id);
        stateUpdated(state, taskListOf(state));
        return answer;
      },
    }) as ToolDefinition<unknown>,
    defineTool({
      name: "execute_tasks_parallel",
      description: TASK_TOOL_DESCRIPTIONS.execute_tasks_parallel,
      parameters: z.object({ task_ids: z.array(z.string()).describe("The IDs of the tasks to execute concurrently.") }),
      execute: async ({ task_ids }) => {
        const tasks = task_ids.map((id) => ({ id, task: find(id) }));
        for (const { id, task } of tasks) {
          if (!task) return notFound(id);
          if (!task.assignee) return `Task [${id}] has no assignee. Assign a member_id first.`;
        }
        const answers = await Promise.all(tasks.map(({ task }) => execute(task!, task!.assignee!)));
        stateUpdated(state, taskListOf(state));
        return answers.join("\n");
      },
    }) as ToolDefinition<unknown>,
  ];
}

/**
 * After the leader answers without calling a tool: the message that sends it back to work, or
 * null when the run is done (goal marked complete, every task ended without a failure, no tasks
 * after a second answer, or `maxIterations` answers given).
 */
export function nextTaskIteration(state: RunState, team: TeamLeader): AgnoMessage | null {
  const list = taskListOf(state);
  const max = team.definition.maxIterations ?? 10;
  const iteration = (state.taskIteration ??= 1);
  emitNamed(state, "TeamTaskIterationCompleted", { iteration, max_iterations: max, task_summary: taskSummary(list) });
  const allEnded = list.tasks.length > 0 && list.tasks.every((t) => ENDED.has(t.status)) && !list.tasks.some((t) => t.status === "failed");
  const idle = list.tasks.length === 0 && iteration >= 2;
  if (list.goal_complete || allEnded || idle || iteration >= max) return null;
  state.taskIteration = iteration + 1;
  emitNamed(state, "TeamTaskIterationStarted", { iteration: iteration + 1, max_iterations: max });
  return {
    role: "user",
    content: `<current_task_state>\n${taskSummary(list)}\n</current_task_state>\n\nContinue working on the tasks: create, execute or update them as needed. When the goal is met, write your answer and call \`mark_all_complete\`.`,
    created_at: now(),
  };
}
