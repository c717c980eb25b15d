import { nextHandlers } from "@/lib/http/next-handlers.ts";

export const dynamic = "force-dynamic";
export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = nextHandlers("/components/{component_id}/configs");
