"use client";

import type { StudioChoices } from "@/lib/http/dashboard/studio-view.ts";
import type { ComponentType } from "@/lib/config/component-config.ts";
import type { UserAction } from "../users/user-action-types.ts";
import { AgentEditor } from "./agent-editor.tsx";
import type { EditorTarget } from "./editor-shell.tsx";
import { TeamEditor } from "./team-editor.tsx";
import { WorkflowEditor } from "./workflow-editor.tsx";

/** The editor of a component's type, starting from `saved` (a version's config, or {} for a new one). */
export function ComponentEditor({
  type,
  saved,
  choices,
  target,
  actions,
}: {
  type: ComponentType;
  saved: Record<string, unknown>;
  choices: StudioChoices;
  target: Omit<EditorTarget, "componentType">;
  actions: { save: UserAction; checkSchema: UserAction };
}) {
  const full = { ...target, componentType: type };
  if (type === "team") return <TeamEditor saved={saved} choices={choices} target={full} save={actions.save} />;
  if (type === "workflow") return <WorkflowEditor saved={saved} choices={choices} target={full} save={actions.save} />;
  return <AgentEditor saved={saved} choices={choices} target={full} save={actions.save} checkSchema={actions.checkSchema} />;
}
