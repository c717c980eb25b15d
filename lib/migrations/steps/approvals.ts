import type { MigrationStep } from "../types.ts";
import { addColumnIfMissing, addIndexIfMissing, dropEmptyColumn, dropIndexIfExists } from "./helpers.ts";

export const approvalsSteps: MigrationStep[] = [
  {
    version: "2.5.6",
    description: "approvals record the paused run's status",
    async up(ctx) {
      await addColumnIfMissing(ctx, "agno_approvals", { name: "run_status", type: "text" });
      await addIndexIfMissing(ctx, "agno_approvals", { name: "idx_agno_approvals_run_status", columns: ["run_status"] });
    },
    async down(ctx) {
      await dropIndexIfExists(ctx, "idx_agno_approvals_run_status");
      await dropEmptyColumn(ctx, "agno_approvals", "run_status");
    },
  },
];
