import { currentDashboardSession, dashboardSessionFrom } from "@/lib/http/dashboard/current-user.ts";
import { listScope } from "@/lib/http/dashboard/list-params.ts";
import { queueEventStream } from "@/lib/http/dashboard/queue-stream.ts";
import { sseResponse } from "@/lib/http/sse.ts";

export const dynamic = "force-dynamic";

/**
 * GET /dashboard/queue-events: the queue page's live feed (SSE), as the signed-in user may see
 * it — a member's own jobs, an admin's everyone's or `?user=`'s. The stream asks again who is
 * signed in every so often, so a user disabled, demoted or signed out everywhere stops receiving it.
 */
export async function GET(request: Request): Promise<Response> {
  const session = await currentDashboardSession();
  if (!session) return Response.json({ detail: "Sign in to the dashboard first" }, { status: 401 });
  const params = Object.fromEntries(new URL(request.url).searchParams);
  const { db, settings } = session;
  const cookieHeader = request.headers.get("cookie");
  const authorize = async () => {
    const now = await dashboardSessionFrom(cookieHeader);
    return now ? listScope(now.principal, params) : null;
  };
  return sseResponse(queueEventStream({ db, settings, scope: listScope(session.principal, params), authorize, signal: request.signal }));
}
