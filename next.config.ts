import type { NextConfig } from "next";

const nextConfig: NextConfig = {
  // Server-side packages with native parts or runtime file access stay out of the bundle.
  serverExternalPackages: ["better-sqlite3", "pg", "@prisma/client", "@prisma/adapter-better-sqlite3", "@prisma/adapter-pg", "swagger-ui-dist", "ioredis"],
  // gzip buffers text/event-stream, so run events would reach clients only at the end (TOOLCHAIN trap 10).
  compress: false,
  // Agno strips a trailing slash without redirecting; our routes match either form.
  skipTrailingSlashRedirect: true,
  poweredByHeader: false,
  typedRoutes: false,
};

export default nextConfig;
