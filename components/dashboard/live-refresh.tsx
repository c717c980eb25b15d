"use client";

import { useRouter } from "next/navigation";
import { useEffect } from "react";

/**
 * Re-renders the page from the server every `intervalMs` while `active` (something on it is still
 * PENDING or RUNNING), so statuses move without a reload; stops once everything has settled.
 */
export function LiveRefresh({ active, intervalMs = 2000 }: { active: boolean; intervalMs?: number }) {
  const router = useRouter();
  useEffect(() => {
    if (!active) return;
    const timer = setInterval(() => router.refresh(), intervalMs);
    return () => clearInterval(timer);
  }, [active, intervalMs, router]);
  return active ? (
    <span className="text-xs text-slate-500" aria-live="polite">
      live
    </span>
  ) : null;
}
