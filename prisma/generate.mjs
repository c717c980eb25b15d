// Generates both Prisma clients (PostgreSQL from prisma/schema.prisma, SQLite from the schema
// derived from it). Runs offline: `generate` needs no schema engine, so the engine path points
// at /bin/false and any command that would need one fails loudly instead of downloading it.
import { execFileSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const prisma = join(root, "node_modules", "prisma", "build", "index.js");
const env = { ...process.env, PRISMA_SCHEMA_ENGINE_BINARY: "/bin/false", PRISMA_HIDE_UPDATE_MESSAGE: "1" };

execFileSync(process.execPath, [join(root, "prisma", "derive-sqlite.mjs")], { stdio: "inherit" });
for (const schema of ["prisma/schema.prisma", "prisma/generated/sqlite.prisma"]) {
  execFileSync(process.execPath, [prisma, "generate", "--schema", schema], { cwd: root, env, stdio: "inherit" });
}
