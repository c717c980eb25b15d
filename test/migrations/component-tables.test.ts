import { describe, expect, it } from "vitest";
import { createConfig, getComponent, listComponents, listConfigs, type StoreCaller } from "@/lib/components/store.ts";
import { readSchemaVersions, stampSchemaVersion } from "@/lib/db/index.ts";
import type { Db } from "@/lib/db/open-database.ts";
import { linksOf } from "@/lib/db/components/components.ts";
import { columnsOf, indexExists, tableExists } from "@/lib/migrations/introspect.ts";
import { MigrationManager } from "@/lib/migrations/migration-manager.ts";
import { COMPONENT_CONFIGS, COMPONENT_LINKS, COMPONENTS } from "@/lib/migrations/tables/specs.ts";
import { LATEST_VERSION } from "@/lib/migrations/types.ts";
import { DIALECTS } from "../support/databases.ts";
import { testSettings } from "../support/settings.ts";
import { v3ShapeProblems, withFreshDb } from "./helpers.ts";

/**
 * Agno v3's component tables through the migration manager: created at their shape on a database
 * without them, and — where Agno 3 made them (its SQLite config table has no `deleted_at`, its
 * indexes are Agno's) — kept with their rows, completed with what the spec adds, stamped 3.0.0,
 * and read and written by Agentry's store.
 */
async function createAgnoComponentTables(db: Db): Promise<void> {
  const pg = db.dialect === "postgres";
  const json = pg ? "JSONB" : "JSON";
  const int = pg ? "INTEGER" : "BIGINT";
  const statements = [
    `CREATE TABLE agno_components (
      component_id VARCHAR NOT NULL, component_type VARCHAR NOT NULL, name VARCHAR ${pg ? "" : "NOT NULL"}, user_id VARCHAR, description ${pg ? "TEXT" : "VARCHAR"},
      current_version ${int}, metadata ${json}, created_at BIGINT NOT NULL, updated_at BIGINT, deleted_at BIGINT, PRIMARY KEY (component_id))`,
    `CREATE TABLE agno_component_configs (
      component_id VARCHAR NOT NULL ${pg ? "REFERENCES agno_components (component_id)" : ""}, version ${int} NOT NULL, label VARCHAR, stage VARCHAR NOT NULL,
      config ${json} NOT NULL, notes ${pg ? "TEXT" : "VARCHAR"}, created_at BIGINT NOT NULL, updated_at BIGINT${pg ? ", deleted_at BIGINT" : ""},
      PRIMARY KEY (component_id, version))`,
    `CREATE TABLE agno_component_links (
      parent_component_id VARCHAR NOT NULL, parent_version ${int} NOT NULL, link_kind VARCHAR NOT NULL, link_key VARCHAR NOT NULL,
      child_component_id VARCHAR NOT NULL ${pg ? "REFERENCES agno_components (component_id)" : ""}, child_version ${int}, position ${int} NOT NULL, meta ${json},
      created_at BIGINT, updated_at BIGINT, PRIMARY KEY (parent_component_id, parent_version, link_kind, link_key)
      ${pg ? ", FOREIGN KEY (parent_component_id, parent_version) REFERENCES agno_component_configs (component_id, version)" : ""})`,
    ...["component_type", "name", "user_id", "current_version", "created_at"].map((c) => `CREATE INDEX idx_agno_components_${c} ON agno_components (${c})`),
    "CREATE INDEX idx_agno_component_configs_stage ON agno_component_configs (stage)",
    "CREATE INDEX idx_agno_component_configs_created_at ON agno_component_configs (created_at)",
    "CREATE INDEX idx_agno_component_links_link_kind ON agno_component_links (link_kind)",
    "CREATE INDEX idx_agno_component_links_created_at ON agno_component_links (created_at)",
  ];
  for (const text of statements) await db.sql.exec(text);
  // What Agno's Studio wrote: a published agent with a newer draft, and a published team pinning it.
  await db.sql.exec(
    `INSERT INTO agno_components VALUES
      ('helper', 'agent', 'Helper', 'alice', 'Helps', 1, '{"studio": {"by": "alice"}}', 1760000000, 1760000100, NULL),
      ('desk', 'team', 'Desk', NULL, NULL, 1, NULL, 1760000200, NULL, NULL)`,
  );
  await db.sql.exec(
    `INSERT INTO agno_component_configs (component_id, version, label, stage, config, notes, created_at, updated_at) VALUES
      ('helper', 1, 'stable', 'published', '{"name": "Helper", "instructions": "Help."}', NULL, 1760000000, NULL),
      ('helper', 2, NULL, 'draft', '{"name": "Helper", "instructions": "Help more."}', 'wip', 1760000050, NULL),
      ('desk', 1, NULL, 'published', '{"name": "Desk", "members": [{"type": "agent", "agent_id": "helper"}]}', NULL, 1760000200, NULL)`,
  );
  await db.sql.exec(
    `INSERT INTO agno_component_links (parent_component_id, parent_version, link_kind, link_key, child_component_id, child_version, position, meta, created_at)
     VALUES ('desk', 1, 'member', 'member_0', 'helper', 1, 0, '{"type": "agent"}', 1760000200)`,
  );
}

const ADMIN: StoreCaller = { userId: null, isAdmin: true, scoped: false };
const TABLES = ["agno_components", "agno_component_configs", "agno_component_links"];

describe.each(DIALECTS)("Agno's component tables on $name", (dialect) => {
  describe.skipIf(dialect.skipReason !== null)(dialect.name, () => {
    it("creates them at their shape where they are missing", async () => {
      await withFreshDb(dialect, async (db) => {
        const outcomes = await new MigrationManager(db).up();
        for (const table of TABLES)
          expect(
            outcomes.find((o) => o.table === table),
            table,
          ).toMatchObject({ action: "created", to: LATEST_VERSION });
        for (const spec of [COMPONENTS, COMPONENT_CONFIGS, COMPONENT_LINKS]) for (const index of spec.indexes) expect(await indexExists(db, index.name), index.name).toBe(true);
        expect(await v3ShapeProblems(db)).toEqual([]);
        // The foreign keys hold: a config of no component, or a link to no component, is refused.
        await expect(db.sql.exec("INSERT INTO agno_component_configs (component_id, version, stage, config, created_at) VALUES ('ghost', 1, 'draft', '{}', 1)")).rejects.toThrow();
      });
    });

    describe.each([
      { name: "unstamped", stamp: null },
      { name: "stamped 3.0.0 by Agno 3", stamp: LATEST_VERSION },
    ])("a database whose component tables Agno 3 made ($name)", ({ stamp }) => {
      it("keeps them and their rows, adds what the spec adds, stamps them 3.0.0, and Agentry reads and writes them", async () => {
        await withFreshDb(dialect, async (db) => {
          await new MigrationManager(db).up({ tables: ["sessions"] });
          await createAgnoComponentTables(db);
          if (stamp) for (const table of TABLES) await stampSchemaVersion(db, table, stamp);

          const outcomes = await new MigrationManager(db).up();
          // Stamped 3.0.0, a table lacking nothing of the spec stays as it is (Agno's PostgreSQL config table).
          const complete = (table: string) => stamp !== null && table === "agno_component_configs" && dialect.name === "postgres";
          for (const table of TABLES) {
            expect(
              outcomes.find((o) => o.table === table),
              table,
            ).toMatchObject({ action: complete(table) ? "unchanged" : "migrated", from: stamp, to: LATEST_VERSION });
          }
          expect(await v3ShapeProblems(db)).toEqual([]);
          expect((await columnsOf(db, "agno_component_configs")).has("deleted_at")).toBe(true);
          const versions = await readSchemaVersions(db);
          expect(TABLES.map((t) => versions.get(t))).toEqual([LATEST_VERSION, LATEST_VERSION, LATEST_VERSION]);

          const settings = testSettings({ file: { agents: [] } });
          expect((await listComponents(db, settings, ADMIN, { page: 1, limit: 10, includeDeleted: false })).data.map((c) => c.component_id)).toEqual(["desk", "helper"]);
          expect(await getComponent(db, settings, ADMIN, "helper", { includeDeleted: false })).toEqual({
            component_id: "helper",
            component_type: "agent",
            name: "Helper",
            user_id: "alice",
            description: "Helps",
            current_version: 1,
            metadata: { studio: { by: "alice" } },
            created_at: 1760000000,
            updated_at: 1760000100,
            deleted_at: null,
          });
          expect((await listConfigs(db, settings, ADMIN, "helper", { includeConfig: true })).map((c) => [c.version, c.stage, c.label, c.config?.instructions])).toEqual([
            [2, "draft", null, "Help more."],
            [1, "published", "stable", "Help."],
          ]);
          expect((await linksOf(db, "desk", 1)).map((l) => [l.child_component_id, l.child_version, l.meta])).toEqual([["helper", 1, { type: "agent" }]]);
          expect((await createConfig(db, settings, ADMIN, "helper", { config: { name: "Helper", instructions: "Three." } })).version).toBe(3);

          // A rerun changes nothing; going back keeps the tables and their rows.
          expect((await new MigrationManager(db).up()).filter((o) => o.action !== "unchanged")).toEqual([]);
          await new MigrationManager(db).down({ targetVersion: "2.5.6", tables: ["components", "component_configs", "component_links"] });
          for (const table of TABLES) expect(await tableExists(db, table)).toBe(true);
          expect((await listConfigs(db, settings, ADMIN, "helper", { includeConfig: false })).length).toBe(3);
        });
      });
    });
  });
});
