import type { NextConfig } from "next";
import { API_CSP, HSTS, STATIC_SECURITY_HEADERS } from "./lib/http/security-headers.ts";

const nextConfig: NextConfig = {
  // Where the build goes; another folder lets two builds of one checkout coexist (parallel e2e runs).
  distDir: process.env.AGENTRY_NEXT_DIST_DIR || ".next",
  // Server-side packages with native parts or runtime file access stay out of the bundle; so does
  // OpenTelemetry, so every module graph in the process uses the one tracer provider lib/tracing installs.
  serverExternalPackages: [
    "better-sqlite3",
    "pg",
    "@prisma/client",
    "@prisma/adapter-better-sqlite3",
    "@prisma/adapter-pg",
    "swagger-ui-dist",
    "ioredis",
    "sqlite-vec",
    "@opentelemetry/api",
    "@opentelemetry/sdk-trace-base",
    "@opentelemetry/context-async-hooks",
    "@opentelemetry/exporter-trace-otlp-http",
    "@opentelemetry/resources",
  ],
  // gzip buffers text/event-stream, so run events would reach clients only at the end.
  compress: false,
  // Agno strips a trailing slash without redirecting; our routes match either form.
  skipTrailingSlashRedirect: true,
  poweredByHeader: false,
  typedRoutes: false,
  // Security headers (lib/http/security-headers.ts). Dashboard pages get their CSP, with a nonce
  // per request, from proxy.ts; /docs sets its own; every other path is the API.
  async headers() {
    return [
      { source: "/:path*", headers: [...STATIC_SECURITY_HEADERS] },
      { source: "/:path((?!dashboard|docs|_next).*)", headers: [{ key: "Content-Security-Policy", value: API_CSP }] },
      // `next start` speaks plain http: https means a proxy in front that says so.
      { source: "/:path*", has: [{ type: "header", key: "x-forwarded-proto", value: "https" }], headers: [{ key: "Strict-Transport-Security", value: HSTS }] },
    ];
  },
};

export default nextConfig;
