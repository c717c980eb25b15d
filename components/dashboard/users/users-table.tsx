"use client";

import { createColumnHelper } from "@tanstack/react-table";
import { createContext, useContext, type ReactNode } from "react";
import { DataTable } from "../table/data-table.tsx";
import type { DashboardTableFeatures } from "../table/features.ts";
import { RevokeInviteButton } from "./revoke-invite-button.tsx";
import type { UserAction } from "./user-action-types.ts";
import { UserRowActions } from "./user-row-actions.tsx";

/** A dashboard user as the Users page lists them (plain data: it crosses to this client table). */
export interface UserRow {
  id: string;
  email: string;
  name: string | null;
  role: "admin" | "member";
  disabledAt: number | null;
  /** The signed-in admin's own row. */
  self: boolean;
}

/** A pending invite as the Users page lists it. */
export interface InviteRow {
  id: string;
  email: string;
  role: string;
  expiresAt: number;
}

/** The page's user-management actions, which the row cells call. */
export interface UserActions {
  setRole: UserAction;
  setEnabled: UserAction;
  resetLink: UserAction;
  revokeInvite: UserAction;
}

const UserActionsContext = createContext<UserActions | null>(null);

function useUserActions(): UserActions {
  const actions = useContext(UserActionsContext);
  if (!actions) throw new Error("user cells render inside UserTables");
  return actions;
}

const date = (epochSeconds: number) => new Date(epochSeconds * 1000).toISOString().slice(0, 16).replace("T", " ");

function UserActionsCell({ user }: { user: UserRow }) {
  const { setRole, setEnabled, resetLink } = useUserActions();
  return <UserRowActions user={{ id: user.id, email: user.email, role: user.role, disabled: user.disabledAt !== null, self: user.self }} actions={{ setRole, setEnabled, resetLink }} />;
}

function WithdrawInviteCell({ invite }: { invite: InviteRow }) {
  return <RevokeInviteButton inviteId={invite.id} email={invite.email} action={useUserActions().revokeInvite} />;
}

const users = createColumnHelper<DashboardTableFeatures, UserRow>();
const USER_COLUMNS = users.columns([
  users.accessor("email", {
    header: "Email",
    cell: ({ row }) => (
      <>
        {row.original.email}
        {row.original.self && <span className="ml-1 text-xs text-slate-500">(you)</span>}
      </>
    ),
  }),
  users.accessor("name", { header: "Name", cell: (info) => info.getValue() ?? "—" }),
  users.accessor("role", { header: "Role" }),
  users.accessor("disabledAt", { header: "Status", cell: (info) => (info.getValue() === null ? "active" : `disabled ${date(info.getValue()!)}`) }),
  users.display({ id: "actions", header: "Actions", cell: ({ row }) => <UserActionsCell user={row.original} /> }),
]);

const invites = createColumnHelper<DashboardTableFeatures, InviteRow>();
const INVITE_COLUMNS = invites.columns([
  invites.accessor("email", { header: "Email" }),
  invites.accessor("role", { header: "Role" }),
  invites.accessor("expiresAt", { header: "Expires (UTC)", cell: (info) => date(info.getValue()) }),
  invites.display({ id: "withdraw", header: () => <span className="sr-only">Withdraw</span>, cell: ({ row }) => <WithdrawInviteCell invite={row.original} /> }),
]);

/** The actions the user and invite tables under it act with. */
export function UserTables({ actions, children }: { actions: UserActions; children: ReactNode }) {
  return <UserActionsContext value={actions}>{children}</UserActionsContext>;
}

/** Every dashboard user, each with its role, state and actions. */
export function UsersTable({ rows }: { rows: UserRow[] }) {
  return <DataTable variant="plain" label="People" testId="users-table" columns={USER_COLUMNS} rows={rows} rowId={(u) => u.id} rowTestId={(u) => `user-row-${u.email}`} empty="None." />;
}

/** The invites not yet used, each withdrawable. */
export function InvitesTable({ rows }: { rows: InviteRow[] }) {
  return <DataTable variant="plain" label="Pending invites" testId="invites-table" columns={INVITE_COLUMNS} rows={rows} rowId={(i) => i.id} empty="None." />;
}
