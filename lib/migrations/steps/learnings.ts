import type { MigrationStep } from "../types.ts";
import { rekeyUserEntityLearnings } from "./learnings-rekey.ts";

export { QUARANTINE_NAMESPACE, quarantinedEntityKey } from "./learnings-classify.ts";
export { userEntityKey, userKeyDigest } from "../../db/learnings/learning-ids.ts";

/** Buckets an operator must look at, then buckets only recorded, with what each means (Agno's notes). */
const NEEDS_AN_OPERATOR = [
  ["conflicts", "have a row on their v3 key whose content is not an object"],
  ["failed", "could not be moved"],
  ["malformed", "lack the entity columns or hold content that is not an object"],
] as const;
const FOR_THE_RECORD = [
  ["quarantined", "held more than one user's data and moved to namespace quarantined_user"],
  ["contaminated_keyed", "record a user other than their owner and were left in place"],
  ["unowned", "have no owner: no user's erasure reaches them, and they were left in place"],
] as const;

export const learningsSteps: MigrationStep[] = [
  {
    version: "3.0.0",
    description:
      "entity learnings in the user namespace are keyed per user; a row whose content records a user other than its owner moves to namespace quarantined_user (owner kept), a row with no owner stays",
    async up({ db, log, reportLearningsRekey }) {
      const report = await rekeyUserEntityLearnings(db, { dryRun: false, log });
      const counts = (["rekeyed", "merged", "quarantined", "contaminated", "contaminated_keyed", "unowned", "malformed", "conflicts", "failed", "purged"] as const)
        .map((bucket) => `${bucket}=${report[bucket].length}`)
        .join(" ");
      log(`agno_learnings: user entity re-key scanned=${report.scanned} keyed=${report.keyed} ${counts}`);
      for (const [bucket, note] of [...NEEDS_AN_OPERATOR, ...FOR_THE_RECORD]) {
        if (report[bucket].length > 0) log(`agno_learnings: ${report[bucket].length} entity_memory row(s) ${note}`);
      }
      reportLearningsRekey?.(report);
    },
    irreversibleBecause: "the pre-v3 key collides users by design, so the re-key cannot be reversed",
  },
];
