/** The dashboard origin the action tests pretend to be served from (links are built on it). */
export const ACTION_ORIGIN = "http://127.0.0.1:7777";

/** A form as a browser posts it to a server action. */
export function formOf(fields: Record<string, string>): FormData {
  const data = new FormData();
  for (const [key, value] of Object.entries(fields)) data.set(key, value);
  return data;
}
