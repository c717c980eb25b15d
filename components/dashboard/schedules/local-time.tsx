"use client";

import { useSyncExternalStore } from "react";
import { formatZoned, viewerTimeZone } from "./zoned-time.ts";

const noSubscription = () => () => {};

/**
 * The viewer's time zone in the browser; null while rendering on the server (which does not know
 * it), so the first paint shows UTC and hydration then switches to the viewer's clock.
 */
export function useViewerTimeZone(): string | null {
  return useSyncExternalStore(noSubscription, viewerTimeZone, () => null);
}

/** An epoch-seconds time in the viewer's time zone ("—" for none); the UTC time on hover. */
export function LocalTime({ epoch, weekday = false, empty = "—" }: { epoch: number | null | undefined; weekday?: boolean; empty?: string }) {
  const zone = useViewerTimeZone();
  if (epoch === null || epoch === undefined) return <span className="text-slate-500">{empty}</span>;
  return (
    <time dateTime={new Date(epoch * 1000).toISOString()} title={formatZoned(epoch, "UTC")} className="whitespace-nowrap">
      {formatZoned(epoch, zone ?? "UTC", { weekday })}
    </time>
  );
}
