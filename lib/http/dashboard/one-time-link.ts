import "server-only";
import { describeLink } from "../../auth/dashboard/account-setup.ts";
import { PASSWORD_MIN_LENGTH } from "../../auth/dashboard/password-hash.ts";
import type { Settings } from "../../config/settings.ts";
import type { TokenPurpose } from "../../db/users/user-tokens.ts";
import { getDatabase, getSettings } from "../../server/app-context.ts";

/** The props Next gives a page under `[token]`. */
export interface TokenPageProps {
  params: Promise<{ token: string }>;
}

export interface OneTimeLink {
  token: string;
  /** Whose link it is, while it is live; null for a link invalid, expired or used. */
  link: { email: string } | null;
  settings: Settings;
  /** The shortest password the form accepts. */
  minLength: number;
}

/** What an invite or password-reset link's page needs: whether the link is live, and for whom. */
export async function openOneTimeLink(params: TokenPageProps["params"], purpose: TokenPurpose): Promise<OneTimeLink> {
  const { token } = await params;
  const settings = getSettings();
  const link = await describeLink(await getDatabase(settings), { token, purpose });
  return { token, link, settings, minLength: PASSWORD_MIN_LENGTH };
}
