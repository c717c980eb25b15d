import type { PlaygroundTurn } from "@/lib/http/dashboard/playground-session.ts";
import { displayText } from "../format.ts";
import type { AgentSummary } from "./agent-summary.ts";
import { Playground } from "./playground.tsx";

/** An agent's or team's playground page, continuing `continued` (its earlier turns above the chat) when given. */
export function PlaygroundPage({ agent, continued }: { agent: AgentSummary; continued?: { id: string; history: PlaygroundTurn[] } }) {
  const session = continued && {
    id: continued.id,
    history: continued.history.map((turn) => ({ runId: displayText(turn.runId), input: displayText(turn.input), output: displayText(turn.output) })),
  };
  return (
    <main className="mx-auto max-w-3xl px-4 pt-4 sm:px-6 sm:pt-6">
      <Playground agent={agent} session={session} />
    </main>
  );
}
