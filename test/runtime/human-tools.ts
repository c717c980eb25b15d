import { z } from "zod";
import { defineTool } from "@/lib/runtime/tools/types.ts";

/**
 * The tools the run suites pause on, one per human step: a confirmation (delete_file), user input
 * (send_email's recipient) and an external execution (lookup_stock, run by the client). Each call
 * that executes is appended to `calls`, e.g. `delete(/tmp/x)`.
 */
export function humanInTheLoopTools(calls: string[]) {
  const deleteFile = defineTool({
    name: "delete_file",
    description: "Deletes a file",
    parameters: z.object({ path: z.string() }),
    requiresConfirmation: true,
    execute: ({ path }) => {
      calls.push(`delete(${path})`);
      return `deleted ${path}`;
    },
  });
  const sendEmail = defineTool({
    name: "send_email",
    description: "Sends an email",
    parameters: z.object({ subject: z.string(), to: z.string().optional() }),
    userInputFields: [{ name: "to", field_type: "str", description: "Recipient" }],
    execute: ({ subject, to }) => {
      calls.push(`email(${to},${subject})`);
      return `sent '${subject}' to ${to}`;
    },
  });
  const lookupStock = defineTool({
    name: "lookup_stock",
    description: "Looks up a stock price (runs on the client)",
    parameters: z.object({ symbol: z.string() }),
    externalExecution: true,
  });
  return { deleteFile, sendEmail, lookupStock };
}
