import type { NavSection } from "./nav-links.tsx";

/**
 * What the dashboard links to. Admins see everyone's sessions, runs, traces and jobs on the workspace
 * pages (with a user filter); the admin section holds what only admins manage. Schedules, evals, knowledge, metrics and what agents
 * know (learnings) have their own entries in "Workspace". Studio (agents, teams and workflows made in the dashboard) sits
 * beside the configured ones.
 */
export function navSections(isAdmin: boolean): NavSection[] {
  const sections: NavSection[] = [
    {
      items: [
        { href: "/dashboard", label: "Overview" },
        { href: "/dashboard/agents", label: "Agents, teams and workflows", also: ["/dashboard/teams", "/dashboard/workflows"] },
        { href: "/dashboard/studio", label: "Studio" },
      ],
    },
    {
      title: "Workspace",
      items: [
        { href: "/dashboard/sessions", label: "Sessions" },
        { href: "/dashboard/runs", label: "Runs" },
        { href: "/dashboard/traces", label: "Traces" },
        { href: "/dashboard/queue", label: "Queue" },
        { href: "/dashboard/memories", label: "Memories" },
        { href: "/dashboard/learnings", label: "What agents know" },
        { href: "/dashboard/knowledge", label: "Knowledge" },
        { href: "/dashboard/schedules", label: "Schedules" },
        { href: "/dashboard/approvals", label: "Approvals" },
        { href: "/dashboard/evals", label: "Evals" },
        { href: "/dashboard/metrics", label: "Metrics" },
      ],
    },
  ];
  if (isAdmin) {
    sections.push({
      title: "Admin",
      items: [
        { href: "/dashboard/admin/users", label: "Users" },
        { href: "/dashboard/admin/service-accounts", label: "Service accounts" },
        { href: "/dashboard/admin/database", label: "Database" },
        { href: "/dashboard/admin/mcp-servers", label: "MCP servers" },
      ],
    });
  }
  return sections;
}
