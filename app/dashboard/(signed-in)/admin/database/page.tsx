import { migrateDatabase } from "@/app/dashboard/_actions/database.ts";
import { MigrateForm } from "@/components/dashboard/admin/migrate-form.tsx";
import { databaseSchemaStatus } from "@/lib/http/dashboard/database-status.ts";
import { requireDashboardAdmin } from "@/lib/http/dashboard/current-user.ts";
import { Section } from "@/components/dashboard/section.tsx";

export const dynamic = "force-dynamic";

/** Admins only (members get a 404): the database, each table's schema version, and migrating it. */
export default async function AdminDatabasePage() {
  const { db } = await requireDashboardAdmin();
  const { latest, tables } = await databaseSchemaStatus(db);
  const pending = tables.filter((t) => t.pending);
  return (
    <main className="mx-auto max-w-5xl p-4 md:p-6">
      <h1 className="mb-1 text-2xl font-semibold">Database</h1>
      <p className="mb-6 text-sm text-slate-600 dark:text-slate-400">
        Each table&apos;s schema is versioned on its own in <code>agno_schema_versions</code>; this code writes version {latest}. The same migration runs from <code>npx agentry migrate</code> and{" "}
        <code>POST /databases/{db.id}/migrate</code>.
      </p>

      <Section
        id="db-info"
        title={
          <>
            Database <span className="font-mono text-base">{db.id}</span>
          </>
        }
      >
        <dl className="mb-4 grid grid-cols-[max-content_1fr] gap-x-4 gap-y-1 text-sm">
          <dt className="text-slate-500">Dialect</dt>
          <dd>{db.dialect}</dd>
          <dt className="text-slate-500">Location</dt>
          <dd className="break-all font-mono text-xs leading-5">{db.location}</dd>
          {db.schema && (
            <>
              <dt className="text-slate-500">Schema</dt>
              <dd className="font-mono text-xs leading-5">{db.schema}</dd>
            </>
          )}
          <dt className="text-slate-500">Pending</dt>
          <dd data-testid="pending-count">{pending.length === 0 ? "none: every table is at the latest version" : `${pending.length} of ${tables.length} tables`}</dd>
        </dl>
        <MigrateForm action={migrateDatabase} pendingCount={pending.length} />
      </Section>

      <Section id="tables" title={<>Tables ({tables.length})</>}>
        <div className="overflow-x-auto">
          <table className="w-full text-left text-sm">
            <thead className="text-slate-500">
              <tr>
                <th className="py-2 pr-4 font-medium">Table</th>
                <th className="hidden py-2 pr-4 font-medium sm:table-cell">Type</th>
                <th className="py-2 pr-4 font-medium">Version</th>
                <th className="py-2 font-medium">Status</th>
              </tr>
            </thead>
            <tbody className="divide-y divide-slate-200 dark:divide-slate-800">
              {tables.map((table) => (
                <tr key={table.table} data-testid={`table-row-${table.table}`}>
                  <td className="py-2 pr-4 font-mono text-xs">{table.table}</td>
                  <td className="hidden py-2 pr-4 sm:table-cell">{table.tableType}</td>
                  <td className="py-2 pr-4">{table.version ?? <span className="text-slate-500">unstamped</span>}</td>
                  <td className="py-2">
                    {!table.exists ? (
                      <span className="text-red-700 dark:text-red-300">missing: migrating creates it</span>
                    ) : table.pending ? (
                      <span className="text-red-700 dark:text-red-300">pending → {latest}</span>
                    ) : (
                      <span className="text-emerald-700 dark:text-emerald-300">up to date</span>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </Section>
    </main>
  );
}
