import type { ReactNode } from "react";
import type { LearningGroup } from "@/lib/http/dashboard/learnings-view.ts";
import { Section } from "../section.tsx";
import type { LearningActions } from "./learning-actions.ts";
import { LearningCard } from "./learning-cards.tsx";

const agentHref = (group: LearningGroup) => (group.kind === "team" ? `/dashboard/teams/${encodeURIComponent(group.id!)}` : `/dashboard/agents/${encodeURIComponent(group.id!)}`);

/** The learnings, one section per agent or team that wrote them (`empty` when there are none). */
export function LearningGroups({ groups, actions, showOwner, empty }: { groups: LearningGroup[]; actions: LearningActions; showOwner: boolean; empty: ReactNode }) {
  if (groups.length === 0) {
    return (
      <p data-testid="learnings-empty" className="rounded border border-dashed border-slate-300 p-6 text-center text-sm text-slate-600 dark:border-slate-700 dark:text-slate-400">
        {empty}
      </p>
    );
  }
  return groups.map((group, index) => (
    <Section
      key={group.key}
      id={`learning-group-${index}`}
      title={
        <>
          {group.label}{" "}
          <span className="text-sm font-normal text-slate-500">
            {group.kind === "none" ? "" : group.kind}
            {group.kind !== "none" && !group.configured && " · no longer configured"}
          </span>
        </>
      }
      actions={
        group.kind !== "none" &&
        group.configured && (
          <a href={agentHref(group)} className="text-sm text-slate-600 underline hover:text-slate-900 dark:text-slate-400 dark:hover:text-slate-100">
            Open {group.kind === "team" ? "the team" : "the agent"}
          </a>
        )
      }
    >
      <div className="grid gap-3 md:grid-cols-2" data-testid="learning-group">
        {group.items.map((item) => (
          <LearningCard key={item.learningId} item={item} actions={actions} showOwner={showOwner} />
        ))}
      </div>
    </Section>
  ));
}
