import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import type { Db } from "@/lib/db/open-database.ts";
import { columnsOf, tableExists } from "@/lib/migrations/introspect.ts";
import { MigrationManager } from "@/lib/migrations/migration-manager.ts";
import { TABLES } from "@/lib/migrations/registry.ts";
import { createSeededAgnoV2, type AgnoV2Shape } from "../fixtures/agno-v2.ts";
import { DIALECTS } from "../support/databases.ts";
import { withFreshDb } from "./helpers.ts";

/**
 * prisma/schema.prisma is the data model lib/db reads and writes through; lib/migrations owns the
 * DDL. This suite keeps the two in step: every model's table exists after a migration, with every
 * scalar field as a column of a compatible type and the same nullability.
 */

const SCALARS = new Set(["String", "BigInt", "Int", "Boolean", "Json", "DateTime", "Float", "Decimal", "Bytes"]);

interface PrismaField {
  name: string;
  type: string;
  optional: boolean;
  id: boolean;
  /** `@db.Date` on a DateTime. */
  dateOnly: boolean;
}

interface PrismaModel {
  name: string;
  table: string;
  fields: PrismaField[];
  /** The fields of a compound `@@id([...])`, when the model has one. */
  compoundId?: string[];
}

/** The models of a Prisma schema with their mapped table and scalar fields (relation fields skipped). */
function parsePrismaModels(schema: string): PrismaModel[] {
  const models: PrismaModel[] = [];
  for (const block of schema.matchAll(/^model\s+(\w+)\s*\{([\s\S]*?)^\}/gm)) {
    const [, name, body] = block;
    const fields: PrismaField[] = [];
    let table = name;
    let compoundId: string[] | undefined;
    for (const raw of body.split("\n")) {
      const line = raw.trim();
      if (line === "" || line.startsWith("//")) continue;
      const map = line.match(/^@@map\(\s*"([^"]+)"\s*\)/);
      if (map) {
        table = map[1];
        continue;
      }
      const id = line.match(/^@@id\(\s*\[([^\]]*)\]/);
      if (id) {
        compoundId = id[1].split(",").map((f) => f.trim());
        continue;
      }
      if (line.startsWith("@@")) continue;
      const field = line.match(/^(\w+)\s+(\w+)(\[\])?(\?)?(?:\s+(.*))?$/);
      if (!field) throw new Error(`Unparsed line in model ${name}: ${line}`);
      const [, fieldName, type, list, optional, attributes = ""] = field;
      if (list || !SCALARS.has(type)) continue; // a relation (another model, or a list of one)
      fields.push({
        name: fieldName,
        type,
        optional: optional === "?",
        id: /(^|\s)@id(\s|$|\()/.test(attributes),
        dateOnly: /@db\.Date(\s|$)/.test(attributes),
      });
    }
    for (const field of fields) if (compoundId?.includes(field.name)) field.id = true;
    models.push({ name, table, fields, ...(compoundId ? { compoundId } : {}) });
  }
  return models;
}

/** Lower-case live column types (PostgreSQL information_schema / SQLite declared types) each Prisma type accepts. */
function compatibleTypes(field: PrismaField): string[] {
  switch (field.type) {
    case "String":
      return ["character varying", "varchar", "text"];
    case "BigInt":
      return ["bigint", "integer"];
    case "Int":
      return ["integer", "bigint"];
    case "Boolean":
      return ["boolean"];
    case "Json":
      return ["json", "jsonb"];
    case "Bytes":
      return ["bytea", "blob"];
    case "DateTime":
      return field.dateOnly ? ["date"] : ["timestamp without time zone", "timestamp with time zone", "timestamp", "datetime"];
    default:
      return [];
  }
}

interface DriftReport {
  /** Missing tables and columns, incompatible types, and NOT NULL fields whose column is nullable. */
  problems: string[];
  /** `table.column`s that are NOT NULL although the model says optional (stricter than the model). */
  stricter: string[];
}

async function driftAgainst(db: Db, models: PrismaModel[]): Promise<DriftReport> {
  const problems: string[] = [];
  const stricter: string[] = [];
  for (const model of models) {
    if (!(await tableExists(db, model.table))) {
      problems.push(`${model.name}: table ${model.table} missing`);
      continue;
    }
    const live = await columnsOf(db, model.table);
    for (const field of model.fields) {
      const where = `${model.table}.${field.name}`;
      const column = live.get(field.name);
      if (!column) {
        problems.push(`${where}: column missing (${field.type})`);
        continue;
      }
      const accepted = compatibleTypes(field);
      if (!accepted.includes(column.type)) problems.push(`${where}: ${field.type} stored as ${column.type}`);
      // columnsOf reports a SQLite primary key as NOT NULL even where the table allows NULL in it.
      if (!field.optional && !column.notNull) problems.push(`${where}: required in the model, nullable in the database`);
      if (field.optional && column.notNull) stricter.push(where);
    }
  }
  return { problems, stricter: stricter.sort() };
}

const SCHEMA_PATH = fileURLToPath(new URL("../../prisma/schema.prisma", import.meta.url));
const MODELS = parsePrismaModels(readFileSync(SCHEMA_PATH, "utf8"));

/**
 * Columns Agno 2.x creates NOT NULL where the Prisma model (like a fresh Agentry database) lets
 * them be NULL. A migrated database keeps them: reads are unaffected, writes must fill them.
 */
const AGNO_V2_STRICTER = [
  "agno_approvals.created_at",
  "agno_approvals.source_type",
  "agno_approvals.status",
  "agno_schedule_runs.attempt",
  "agno_schedule_runs.created_at",
  "agno_schedule_runs.status",
  "agno_schedules.created_at",
  "agno_schedules.cron_expr",
  "agno_schedules.enabled",
  "agno_schedules.endpoint",
  "agno_schedules.max_retries",
  "agno_schedules.method",
  "agno_schedules.retry_delay_seconds",
  "agno_schedules.timeout_seconds",
  "agno_schedules.timezone",
];

describe("prisma/schema.prisma parsing", () => {
  it("finds every model with its table and scalar fields, skipping relations", () => {
    const byName = new Map(MODELS.map((m) => [m.name, m]));
    // Every table the migrations manage is modelled, and nothing else.
    expect(MODELS.map((m) => m.table).sort()).toEqual([...TABLES.map((t) => t.spec.name), "agno_schema_versions"].sort());
    const session = byName.get("Session")!;
    expect(session.fields.map((f) => f.name)).not.toContain("run_rows");
    expect(session.fields.find((f) => f.name === "session_id")).toMatchObject({ type: "String", optional: false, id: true });
    expect(session.fields.find((f) => f.name === "user_id")).toMatchObject({ optional: true });
    expect(byName.get("Run")!.fields.map((f) => f.name)).not.toContain("session");
    expect(byName.get("Schedule")!.fields.map((f) => f.name)).not.toContain("runs");
    expect(byName.get("Metrics")!.fields.find((f) => f.name === "date")).toMatchObject({ type: "DateTime", dateOnly: true });
    // One @id field, or the fields of one compound @@id.
    for (const model of MODELS) expect(model.fields.filter((f) => f.id).length, model.name).toBe(model.compoundId?.length ?? 1);
    expect(byName.get("TraceDrop")!.compoundId).toEqual(["process_id", "day"]);
  });
});

describe.each(DIALECTS)("schema drift on $name", (dialect) => {
  describe.skipIf(dialect.skipReason !== null)(dialect.name, () => {
    it("a database migrated from empty matches every Prisma model exactly", async () => {
      await withFreshDb(dialect, async (db) => {
        await new MigrationManager(db).up();
        const report = await driftAgainst(db, MODELS);
        expect(report.problems).toEqual([]);
        expect(report.stricter).toEqual([]);
      });
    });

    describe.each([
      { name: "stamped 2.5.6", shape: {} as AgnoV2Shape, stamp: "2.5.6" as const },
      {
        name: "unstamped, oldest shapes",
        shape: { sessionsPrimaryKey: false, memories: "2.0", approvalsRunStatus: false } as AgnoV2Shape,
        stamp: null,
      },
    ])("a migrated Agno v2 database ($name)", ({ shape, stamp }) => {
      it("matches every Prisma model (only Agno's own NOT NULLs are stricter)", async () => {
        await withFreshDb(dialect, async (db) => {
          await createSeededAgnoV2(db, { shape, stamp, seed: { sessions: 12 } });
          await new MigrationManager(db).up();
          const report = await driftAgainst(db, MODELS);
          expect(report.problems).toEqual([]);
          expect(report.stricter).toEqual(AGNO_V2_STRICTER);
        });
      });
    });
  });
});
