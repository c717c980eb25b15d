import Link from "next/link";
import { z } from "zod";
import { deleteLearning, deleteLearningMemory, forgetEverything, updateLearningContent, updateLearningMemory, updateLearningProfile } from "@/app/dashboard/_actions/learnings.ts";
import { FilterBar, ListProblems } from "@/components/dashboard/list/filter-bar.tsx";
import { ListPage } from "@/components/dashboard/list/list-page.tsx";
import { ForgetEverything } from "@/components/dashboard/learnings/forget-everything.tsx";
import { LearningGroups } from "@/components/dashboard/learnings/learning-groups.tsx";
import { LearningsTabs } from "@/components/dashboard/learnings/learnings-tabs.tsx";
import { Section } from "@/components/dashboard/section.tsx";
import { oneOf } from "@/lib/http/dashboard/list-filters.ts";
import { readListFilters, type ListPageProps } from "@/lib/http/dashboard/list-page.ts";
import { firstParam } from "@/lib/http/dashboard/search-params.ts";
import { LEARNING_KIND_LABELS, LEARNING_KINDS, LEARNINGS_SHOWN, loadLearningsView, memoryCount, sharedListScope, type LearningsTab } from "@/lib/http/dashboard/learnings-view.ts";

export const dynamic = "force-dynamic";

const PATH = "/dashboard/learnings";
const FILTERS = z.object({ kind: oneOf(LEARNING_KINDS, { label: "Kind", labels: LEARNING_KIND_LABELS }) });
const ACTIONS = { updateProfile: updateLearningProfile, updateMemory: updateLearningMemory, deleteMemory: deleteLearningMemory, updateContent: updateLearningContent, remove: deleteLearning };

/**
 * What agents know (agno_learnings): about the signed-in member — an admin's: about everyone, or
 * the user `?user=` names —, grouped by the agent or team that last wrote each learning, each
 * editable and deletable, with "Forget everything". `?tab=shared`: the learnings no user owns,
 * which only admins change. `?kind=` narrows to one kind.
 */
export default async function LearningsPage({ searchParams }: ListPageProps) {
  const read = await readListFilters(PATH, FILTERS, { searchParams });
  const { session, isAdmin, userFilter } = read;
  const me = session.user;
  const tab: LearningsTab = firstParam(read.params, "tab") === "shared" ? "shared" : "about";
  const scope = tab === "shared" ? sharedListScope(session.principal) : read.scope;
  const ownerLabel = (userId: string | null) => (userId === me.id ? "you" : read.ownerLabel(userId));
  const [view, memories] = await Promise.all([
    loadLearningsView(session.db, { scope, tab, kind: read.filters.kind, settings: session.settings, principal: session.principal, ownerLabel }),
    tab === "about" ? memoryCount(session.db, read.scope) : 0,
  ]);
  // Whom the first tab is about: a member, always themselves; an admin, the user chosen (or everyone).
  const subject = !isAdmin || userFilter === me.id ? "you" : userFilter ? (read.userFilterLabel ?? userFilter) : "everyone";
  const memoriesHref = isAdmin && userFilter ? `/dashboard/memories?user=${encodeURIComponent(userFilter)}` : "/dashboard/memories";
  const bar = tab === "shared" ? { ...read.bar, fields: read.bar.fields.filter((f) => f.name !== "user") } : read.bar;

  return (
    <ListPage
      title="What agents know"
      description={
        tab === "shared"
          ? `Learnings no user owns: entities agents keep in a shared namespace (such as global) and what they recorded in runs without a user. Every user's agents may read them; ${isAdmin ? "only admins (you) can change them." : "only admins can change them."}`
          : `What agents learned about ${subject} as they talked: profile, memories, the people and things mentioned, decisions and session summaries, grouped by the agent or team that last updated each. ${isAdmin ? "" : "Only you and admins can see this. "}Correct or delete anything here.`
      }
    >
      <LearningsTabs tab={tab} aboutLabel={subject === "everyone" ? "About everyone" : `About ${subject}`} kept={{ user: userFilter, kind: firstParam(read.params, "kind") }} />
      <ListProblems problems={read.problems} />
      <FilterBar bar={bar} hidden={tab === "shared" ? { tab: "shared" } : {}} />
      {tab === "about" && (
        <p className="mb-4 text-sm text-slate-600 dark:text-slate-400" data-testid="memories-note">
          A profile and a memory list are one record per person, shared by every agent that learns about them; each shows under the agent that changed it last. Agents using Agno&apos;s memory (
          <code>updateMemoryOnRun</code>, <code>enableAgenticMemory</code>) keep their memories apart: {subject === "everyone" ? "there are" : `${subject === "you" ? "you have" : "they have"}`}{" "}
          <Link href={memoriesHref} className="underline hover:text-slate-900 dark:hover:text-slate-100">
            {memories} on the Memories page
          </Link>
          .
        </p>
      )}
      {view.truncated && (
        <p role="status" className="mb-4 text-sm text-amber-800 dark:text-amber-300">
          Showing the {LEARNINGS_SHOWN} most recently changed learnings; choose a kind{isAdmin ? " or a user" : ""} to see the others.
        </p>
      )}
      <LearningGroups
        groups={view.groups}
        actions={ACTIONS}
        showOwner={isAdmin && tab === "about" && !userFilter}
        empty={
          read.filtered && read.filters.kind
            ? "Nothing of this kind."
            : tab === "shared"
              ? "No shared learnings."
              : subject === "everyone"
                ? "Agents have learned nothing about anyone yet."
                : `Agents have learned nothing about ${subject} yet. Agents configured to learn build a profile and memories as they talk.`
        }
      />
      {tab === "about" &&
        (subject === "everyone" ? (
          <p className="mt-4 text-sm text-slate-600 dark:text-slate-400">To forget everything agents learned about someone, choose them in the User filter.</p>
        ) : (
          <Section id="forget-everything" title={subject === "you" ? "Forget everything about me" : `Forget everything about ${subject}`}>
            <ForgetEverything action={forgetEverything} userId={isAdmin ? userFilter : undefined} who={subject === "you" ? "me" : subject} />
          </Section>
        ))}
    </ListPage>
  );
}
