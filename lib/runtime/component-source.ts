import type { Settings } from "../config/settings.ts";
import type { Db } from "../db/open-database.ts";
import type { RuntimeAgent } from "./agents.ts";
import { findComponent } from "./components.ts";

/** An agent, team or workflow a request or job names, and optionally the stored version it asks for. */
export interface ComponentRef {
  type: "agent" | "team" | "workflow";
  id: string;
  /** A stored component's version (a draft only for its owner or an admin); absent: its current published version. */
  version?: number;
}

/** Who asks: draft versions are readable by their owner and admins only. */
export interface ComponentCaller {
  userId: string | null;
  isAdmin: boolean;
}

/** A component ready to run. */
export interface ResolvedComponent {
  agent: RuntimeAgent;
  /** The stored version it was built from; null for a component defined in code. */
  version: number | null;
  /** The stored component's stage of that version (null in code). */
  stage: "draft" | "published" | null;
}

/**
 * Where components not defined in code come from: Studio's stored components (lib/components
 * implements it; lib/server/features.ts registers it). `resolve` answers undefined for an id it does
 * not hold (or a version the caller may not see), and throws ComponentRehydrationError
 * (lib/errors/http-error.ts) for one it holds but cannot build against the registry.
 */
export interface ComponentSource {
  resolve(settings: Settings, db: Db, ref: ComponentRef, caller: ComponentCaller): Promise<ResolvedComponent | undefined>;
}

const key = Symbol.for("agentry.component-source");
type Holder = { [key]?: ComponentSource };

/** Installs the process's component source (idempotent: the last one registered is used). */
export function registerComponentSource(source: ComponentSource): void {
  (globalThis as Holder)[key] = source;
}

/**
 * The agent, team or workflow a ref names: one defined in code always wins (it has no versions, so
 * a `version` is not looked at), else the registered source's stored component.
 */
export async function resolveComponent(settings: Settings, db: Db, ref: ComponentRef, caller: ComponentCaller): Promise<ResolvedComponent | undefined> {
  const inCode = findComponent(settings, ref);
  if (inCode) return { agent: inCode, version: null, stage: null };
  const source = (globalThis as Holder)[key];
  return source ? source.resolve(settings, db, ref, caller) : undefined;
}
