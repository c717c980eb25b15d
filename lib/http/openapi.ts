import { z } from "zod";
import type { Settings } from "../config/settings.ts";
import { wireResponseSchema, type AnyRoute } from "./route.ts";

type JsonSchema = Record<string, unknown>;

function toSchema(schema: z.ZodType, io: "input" | "output"): JsonSchema {
  const json = z.toJSONSchema(schema, { io, unrepresentable: "any" }) as JsonSchema;
  delete json.$schema;
  return json;
}

/** Query/path parameters from an object schema: one OpenAPI parameter per key. */
function parameters(schema: z.ZodType | undefined, location: "path" | "query"): JsonSchema[] {
  if (!schema) return [];
  const json = toSchema(schema, "input");
  const properties = (json.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((json.required as string[] | undefined) ?? []);
  return Object.entries(properties).map(([name, property]) => ({
    name,
    in: location,
    required: location === "path" || required.has(name),
    schema: property,
    ...(property.description ? { description: property.description } : {}),
  }));
}

/**
 * OpenAPI 3.1 for the route table — generated from the same zod schemas the handlers validate
 * with, never written by hand.
 */
export function buildOpenApi(routes: readonly AnyRoute[], settings: Settings): JsonSchema {
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const route of routes) {
    if (route.hidden) continue;
    const response = wireResponseSchema(route);
    const operation: JsonSchema = {
      summary: route.summary,
      tags: route.tags,
      operationId: `${route.method.toLowerCase()}${route.path.replace(/[{}]/g, "").replace(/[^A-Za-z0-9]+(.)?/g, (_m, c: string | undefined) => (c ? c.toUpperCase() : ""))}`,
      parameters: [...parameters(route.params, "path"), ...parameters(route.query, "query")],
      responses: {
        [String(route.status ?? 200)]: {
          description: "Success",
          ...(response ? { content: { "application/json": { schema: toSchema(response, "output") } } } : {}),
        },
        ...(route.body || route.form || route.query || route.params ? { 422: { description: "Validation error: `detail` lists each bad field with its location" } } : {}),
        ...("public" in route.access ? {} : { 401: { description: "Missing or invalid credentials" }, 403: { description: "Insufficient permissions" } }),
      },
    };
    if ("permission" in route.access) {
      operation.security = [{ bearer: [] }];
      operation["x-required-scope"] = route.access.permission;
    }
    if (route.body) {
      operation.requestBody = { required: true, content: { "application/json": { schema: toSchema(route.body, "input") } } };
    } else if (route.form) {
      const schema = toSchema(route.form, "input");
      operation.requestBody = {
        required: true,
        content: { "application/x-www-form-urlencoded": { schema }, "multipart/form-data": { schema } },
      };
    }
    (paths[route.path] ??= {})[route.method.toLowerCase()] = operation;
  }
  return {
    openapi: "3.1.0",
    info: {
      title: `${settings.name} — AgentOS API`,
      // The OS's own version, as Agno's FastAPI app declares it.
      version: settings.version,
      description: "Wire-compatible with Agno AgentOS v3.",
    },
    paths,
    components: { securitySchemes: { bearer: { type: "http", scheme: "bearer" } } },
  };
}
