"use client";

import { createColumnHelper } from "@tanstack/react-table";
import { createContext, useContext, type ReactNode } from "react";
import type { ScopeEntry } from "@/lib/db/service-accounts/service-accounts.ts";
import { formatTime } from "../format.ts";
import { DataTable } from "../table/data-table.tsx";
import type { DashboardTableFeatures } from "../table/features.ts";
import type { UserAction } from "../users/user-action-types.ts";
import { RevokeServiceAccountButton } from "./revoke-service-account-button.tsx";

/** A service account as the admin page lists it (plain data: it crosses to this client table). */
export interface ServiceAccountRow {
  id: string;
  name: string;
  token_prefix: string | null;
  scopes: ScopeEntry[];
  created_at: number;
  last_used_at: number | null;
  expires_at: number | null;
  revoked: boolean;
  /** "active", "revoked" or "expired", and since when for the last two. */
  status: { label: string; since?: number };
}

const RevokeContext = createContext<UserAction | null>(null);

function RevokeCell({ account }: { account: ServiceAccountRow }) {
  const revoke = useContext(RevokeContext);
  if (!revoke) throw new Error("service account cells render inside ServiceAccountsTable");
  return <RevokeServiceAccountButton accountId={account.id} name={account.name} action={revoke} />;
}

const times = (a: ServiceAccountRow) => ({
  created: formatTime(a.created_at),
  used: a.last_used_at === null ? "never" : formatTime(a.last_used_at),
  expires: a.expires_at === null ? "never" : formatTime(a.expires_at),
});

const helper = createColumnHelper<DashboardTableFeatures, ServiceAccountRow>();
// Phones have no room for the time columns: the name cell repeats the times under the name.
const wide = { className: "hidden whitespace-nowrap md:table-cell" };

const COLUMNS = helper.columns([
  helper.accessor("name", {
    header: "Name",
    cell: ({ row }) => {
      const account = row.original;
      const t = times(account);
      return (
        <>
          <span className="font-medium">{account.name}</span>
          {account.token_prefix && <span className="block font-mono text-xs text-slate-500">{account.token_prefix}…</span>}
          <span className="mt-1 block text-xs text-slate-500 md:hidden">
            created {t.created} · last used {t.used} · expires {t.expires}
          </span>
        </>
      );
    },
  }),
  helper.accessor("scopes", {
    header: "Scopes",
    cell: ({ row }) => (
      <ul className="flex max-w-72 flex-wrap gap-1" aria-label={`Scopes of ${row.original.name}`}>
        {row.original.scopes.map((entry) => (
          <li
            key={`${entry.effect}:${entry.scope}`}
            className={`rounded px-1.5 py-0.5 font-mono text-xs ${
              entry.effect === "deny" ? "bg-red-50 text-red-800 dark:bg-red-950 dark:text-red-200" : "bg-slate-100 text-slate-700 dark:bg-slate-800 dark:text-slate-200"
            }`}
          >
            {entry.effect === "deny" ? `deny ${entry.scope}` : entry.scope}
          </li>
        ))}
      </ul>
    ),
  }),
  helper.accessor("created_at", { header: "Created (UTC)", meta: wide, cell: ({ row }) => times(row.original).created }),
  helper.accessor("last_used_at", { header: "Last used", meta: wide, cell: ({ row }) => times(row.original).used }),
  helper.accessor("expires_at", { header: "Expires", meta: wide, cell: ({ row }) => times(row.original).expires }),
  helper.accessor((a) => a.status.label, {
    id: "status",
    header: "Status",
    cell: ({ row }) => {
      const { status, revoked } = row.original;
      return (
        <>
          <span className={status.since === undefined ? "" : "text-slate-500"}>
            {status.label}
            {status.since !== undefined && <span className="block text-xs">{formatTime(status.since)}</span>}
          </span>
          {!revoked && (
            <div className="mt-1">
              <RevokeCell account={row.original} />
            </div>
          )}
        </>
      );
    },
  }),
]);

/** Service accounts, newest first, each revocable (after a second click) until it is revoked. */
export function ServiceAccountsTable({ rows, revoke, empty }: { rows: ServiceAccountRow[]; revoke: UserAction; empty: ReactNode }) {
  return (
    <RevokeContext value={revoke}>
      <DataTable
        variant="plain"
        label="Service accounts"
        testId="service-accounts-table"
        columns={COLUMNS}
        rows={rows}
        rowId={(a) => a.id}
        rowTestId={(a) => `service-account-row-${a.name}`}
        empty={empty}
      />
    </RevokeContext>
  );
}
