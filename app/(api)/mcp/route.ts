import { mcpNextHandlers } from "@/lib/mcp-server/next-handlers.ts";

export const dynamic = "force-dynamic";
export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = mcpNextHandlers();
