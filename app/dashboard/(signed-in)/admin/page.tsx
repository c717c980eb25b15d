import { redirect } from "next/navigation";
import { requireDashboardAdmin } from "@/lib/http/dashboard/current-user.ts";

export const dynamic = "force-dynamic";

/** The admin console's entry: admins go to Users; members get a 404. */
export default async function AdminHome() {
  await requireDashboardAdmin();
  redirect("/dashboard/admin/users");
}
