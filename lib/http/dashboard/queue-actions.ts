import { z } from "zod";
import { requeueQueueJob } from "../../queue/requeue.ts";
import { defineDashboardAction } from "./action.ts";

const checkbox = z
  .enum(["on", "true", "false"])
  .optional()
  .transform((v) => v === "on" || v === "true");

/**
 * Requeues a failed or cancelled job (admins), with the API's rules: a fresh failure needs
 * `force`; a cancelled job requeued without `clearCancellation` keeps its cancel intent and is
 * cancelled again at its first checkpoint — refusals come back as the form's error.
 */
export const requeueJobAction = defineDashboardAction({
  name: "requeueJob",
  access: "admin",
  input: z.object({ jobId: z.string().min(1), force: checkbox, clearCancellation: checkbox }),
  revalidate: "/dashboard/queue",
  async handler({ input, scope, db }) {
    await requeueQueueJob(db, { scope, id: input.jobId, force: input.force, clearCancellation: input.clearCancellation });
    return { ok: true, message: `Requeued; a worker picks it up within the poll interval.` };
  },
});
