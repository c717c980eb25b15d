"use client";

import { createContext, useContext } from "react";
import type { MemoryAction } from "./memory-row.ts";

/**
 * What the memory table's cells share: the page's edit and delete actions, and which row (one at
 * a time) is being edited. Cells are module-scope column definitions, so they read it from here.
 */
export interface MemoryTableState {
  update: MemoryAction;
  remove: MemoryAction;
  editing: string | null;
  setEditing: (memoryId: string | null) => void;
}

export const MemoryTableContext = createContext<MemoryTableState | null>(null);

export function useMemoryTable(): MemoryTableState {
  const state = useContext(MemoryTableContext);
  if (!state) throw new Error("memory table cells render inside MemoryTable");
  return state;
}
