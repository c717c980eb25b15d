import { randomBytes } from "node:crypto";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";
import { buildOpenApi } from "../openapi.ts";
import { HttpError } from "../../errors/http-error.ts";
import type { Settings } from "../../config/settings.ts";
import { defineRoute, type AnyRoute } from "../route.ts";
import { docsCsp } from "../security-headers.ts";

const ASSETS: Record<string, string> = {
  "swagger-ui.css": "text/css; charset=utf-8",
  "swagger-ui-bundle.js": "application/javascript; charset=utf-8",
  "favicon-32x32.png": "image/png",
};

function docsDisabled(): HttpError {
  return new HttpError(404, "Not Found");
}

/** The docs routes need the whole table for OpenAPI, so they are built from it. */
export function docsRoutes(table: () => readonly AnyRoute[]): AnyRoute[] {
  return [
    defineRoute({
      method: "GET",
      path: "/openapi.json",
      summary: "OpenAPI 3.1 description of this API",
      tags: ["Core"],
      access: { public: true },
      hidden: true,
      handler: ({ settings }) => {
        if (!settings.docsEnabled) throw docsDisabled();
        return buildOpenApi(table(), settings);
      },
    }),
    defineRoute({
      method: "GET",
      path: "/docs",
      summary: "Browsable API documentation",
      tags: ["Core"],
      access: { public: true },
      hidden: true,
      handler: ({ settings }) => {
        if (!settings.docsEnabled) throw docsDisabled();
        // Its own narrow CSP: Swagger UI's bundle from this site, the inline init script by nonce.
        const nonce = randomBytes(16).toString("base64");
        const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${settings.name} API docs</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="/docs/favicon-32x32.png"><link rel="stylesheet" href="/docs/swagger-ui.css"></head>
<body><div id="swagger-ui"></div><script nonce="${nonce}" src="/docs/swagger-ui-bundle.js"></script>
<script nonce="${nonce}">window.ui = SwaggerUIBundle({ url: "/openapi.json", dom_id: "#swagger-ui", deepLinking: true });</script>
</body></html>`;
        return new Response(html, { headers: { "content-type": "text/html; charset=utf-8", "content-security-policy": docsCsp(nonce) } });
      },
    }),
    defineRoute({
      method: "GET",
      path: "/docs/{asset}",
      summary: "Swagger UI assets",
      tags: ["Core"],
      access: { public: true },
      hidden: true,
      params: z.object({ asset: z.string() }),
      // The asset the path names and its media type, while the docs are on.
      resource: ({ params }: { params: { asset: string } }, { settings }: { settings: Settings }) => {
        // Own keys only: `constructor` or `__proto__` must not look like an asset.
        const type = Object.hasOwn(ASSETS, params.asset) ? ASSETS[params.asset] : undefined;
        if (!settings.docsEnabled || !type) throw docsDisabled();
        return type;
      },
      handler: async ({ input, resource: type }) => {
        // swagger-ui-dist stays external to the bundle (next.config.ts), so this runs from node_modules.
        const { default: assetsDir } = await import("swagger-ui-dist/absolute-path.js");
        const bytes = await readFile(join(assetsDir(), input.params.asset));
        return new Response(bytes, { headers: { "content-type": type, "cache-control": "public, max-age=86400" } });
      },
    }),
  ];
}
