import { z } from "zod";
import { defineTool, defineToolkit } from "../types.ts";

const pair = z.object({ a: z.number().describe("first operand"), b: z.number().describe("second operand") });

/** Exact arithmetic for models that should not do sums in their head. */
export const calculatorToolkit = defineToolkit({
  id: "calculator",
  name: "Calculator",
  tools: [
    defineTool({ name: "add", description: "Add two numbers", parameters: pair, execute: ({ a, b }) => ({ result: a + b }) }),
    defineTool({ name: "subtract", description: "Subtract b from a", parameters: pair, execute: ({ a, b }) => ({ result: a - b }) }),
    defineTool({ name: "multiply", description: "Multiply two numbers", parameters: pair, execute: ({ a, b }) => ({ result: a * b }) }),
    defineTool({
      name: "divide",
      description: "Divide a by b",
      parameters: pair,
      execute: ({ a, b }) => {
        if (b === 0) throw new Error("division by zero");
        return { result: a / b };
      },
    }),
  ],
});
