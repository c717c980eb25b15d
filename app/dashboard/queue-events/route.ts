import { currentDashboardSession } from "@/lib/http/dashboard/current-user.ts";
import { listScope } from "@/lib/http/dashboard/list-params.ts";
import { queueEventStream } from "@/lib/http/dashboard/queue-stream.ts";
import { sseResponse } from "@/lib/http/sse.ts";

export const dynamic = "force-dynamic";

/**
 * GET /dashboard/queue-events: the queue page's live feed (SSE), as the signed-in user may see
 * it — a member's own jobs, an admin's everyone's or `?user=`'s.
 */
export async function GET(request: Request): Promise<Response> {
  const session = await currentDashboardSession();
  if (!session) return Response.json({ detail: "Sign in to the dashboard first" }, { status: 401 });
  const params = Object.fromEntries(new URL(request.url).searchParams);
  const scope = listScope(session.principal, params);
  return sseResponse(queueEventStream({ db: session.db, settings: session.settings, scope, signal: request.signal }));
}
