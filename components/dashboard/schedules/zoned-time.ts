// Times in a given IANA time zone, for the schedules pages (pure; runs in the browser and the server).

/** The browser's own time zone (the viewer's); UTC where Intl cannot say. */
export function viewerTimeZone(): string {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";
  } catch {
    return "UTC";
  }
}

/**
 * An epoch-seconds time as `Mon 2026-05-04 09:00 GMT+2` in `timeZone`: weekday, ISO-ordered date,
 * 24-hour time, and the zone's short name, so a reader knows which clock it is on.
 */
export function formatZoned(epochSeconds: number, timeZone: string, { weekday = false } = {}): string {
  const parts = new Intl.DateTimeFormat("en-GB", {
    timeZone,
    weekday: weekday ? "short" : undefined,
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
    hour: "2-digit",
    minute: "2-digit",
    hourCycle: "h23",
    timeZoneName: "short",
  }).formatToParts(new Date(epochSeconds * 1000));
  const part = (type: Intl.DateTimeFormatPartTypes) => parts.find((p) => p.type === type)?.value ?? "";
  const date = `${part("year")}-${part("month")}-${part("day")} ${part("hour")}:${part("minute")} ${part("timeZoneName")}`;
  return weekday ? `${part("weekday")} ${date}` : date;
}
