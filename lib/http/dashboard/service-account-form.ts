import type { DEFAULT_EXPIRES_IN_DAYS } from "../../auth/service-account-lifetime.ts";
import type { ActionState } from "./action.ts";

/** The create action's state: `token` is the new account's plaintext, present in this answer only. */
export interface CreatedServiceAccountState extends ActionState {
  token?: string;
}

/**
 * The lifetimes the create-account form offers, in days ("never": a token that never expires).
 * Shared by the action's schema and the browser's form (this module is safe to bundle for both).
 */
export const EXPIRY_CHOICES = ["30", "90", "365", "never"] as const;
export type ExpiryChoice = (typeof EXPIRY_CHOICES)[number];

/** The API's default lifetime, preselected in the form. */
export const DEFAULT_EXPIRY = "90" satisfies `${typeof DEFAULT_EXPIRES_IN_DAYS}`;
