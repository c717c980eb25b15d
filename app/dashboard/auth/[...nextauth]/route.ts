import { handlers } from "@/lib/http/dashboard/next-auth.ts";

// Auth.js's own endpoints (OAuth callbacks, CSRF token, providers) under /dashboard/auth.
export const dynamic = "force-dynamic";
export const { GET, POST } = handlers;
