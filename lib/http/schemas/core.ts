import { z } from "zod";
import { WorkflowSummarySchema } from "./agents.ts";

/** Request and response shapes of the core routes (/, /health, /info, /config, /databases). */

export const LandingSchema = z.object({
  name: z.string(),
  health: z.literal("/health"),
  info: z.literal("/info"),
  docs: z.literal("/docs").optional(),
});

export const HealthSchema = z.object({ status: z.literal("ok"), instantiated_at: z.string() });

export const InfoSchema = z.object({
  os_id: z.string(),
  name: z.string().nullable(),
  /** This OS's version (agentry.config.ts `version`, default "1.0.0"). */
  os_version: z.string(),
  agno_version: z.string(),
  agent_count: z.number().int(),
  team_count: z.number().int(),
  workflow_count: z.number().int(),
  mcp: z.object({
    enabled: z.boolean(),
    path: z.string().nullable(),
    oauth: z.object({ authorization_servers: z.array(z.string()), resource: z.string() }).nullable(),
  }),
  auth_mode: z.enum(["none", "security_key", "jwt"]),
});

const ModelRefSchema = z.object({ id: z.string().nullable(), provider: z.string().nullable() });

/** One unique model of the configured agents and teams (Agno's `Model`, id and provider). */
export const AvailableModelSchema = z.object({ id: z.string(), provider: z.string() });

const DomainDbsSchema = z.object({
  display_name: z.string().nullable().optional(),
  dbs: z.array(z.object({ db_id: z.string(), domain_config: z.object({ display_name: z.string().nullable() }), tables: z.array(z.string()) })),
});

export const ConfigSchema = z.object({
  os_id: z.string(),
  name: z.string().nullable(),
  description: z.string().nullable(),
  available_models: z.array(AvailableModelSchema),
  /** Plainly says what is missing when no model provider is configured. */
  model_provider_status: z.object({ configured: z.boolean(), message: z.string().nullable() }),
  os_database: z.string().nullable(),
  databases: z.array(z.string()),
  chat: z.object({ quick_prompts: z.record(z.string(), z.array(z.string())) }).nullable(),
  session: DomainDbsSchema,
  memory: DomainDbsSchema,
  metrics: DomainDbsSchema,
  evals: DomainDbsSchema,
  /** Agno's TracesConfig: the databases traces are read from (no tables listed). */
  traces: z.object({ dbs: z.array(z.object({ db_id: z.string(), domain_config: z.object({ display_name: z.string().nullable() }) })) }),
  /** Agno's LearningConfig: the database and table the /learnings routes read. */
  learning: DomainDbsSchema,
  /** Agno's knowledge domain: the contents table's database and the knowledge bases served over /knowledge. */
  knowledge: DomainDbsSchema.extend({
    /** Agno's KnowledgeInstanceConfig (`table`: the contents table), plus the search types it offers. */
    knowledge_instances: z.array(z.object({ id: z.string(), name: z.string(), db_id: z.string(), table: z.string(), description: z.string().nullable(), search_types: z.array(z.string()) })),
  }),
  agents: z.array(
    z.object({
      id: z.string(),
      name: z.string(),
      description: z.string().nullable(),
      db_id: z.string(),
      model: ModelRefSchema,
      metadata: z.record(z.string(), z.unknown()).nullable(),
    }),
  ),
  teams: z.array(z.object({ id: z.string(), name: z.string(), description: z.string().nullable(), db_id: z.string(), mode: z.string(), model: ModelRefSchema })),
  workflows: z.array(WorkflowSummarySchema),
  interfaces: z.array(z.unknown()),
});

export const MigrateQuery = z.object({
  target_version: z
    .string()
    .regex(/^\d+\.\d+\.\d+$/, "must be a version like 3.0.0")
    .optional(),
});

export const MigrateParams = z.object({ db_id: z.string().min(1) });

export const MigrateResponse = z.object({
  message: z.string(),
  failed: z.record(z.string(), z.string()).optional(),
});
