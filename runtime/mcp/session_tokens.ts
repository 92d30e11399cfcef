/**
 * Tokens of the agent sessions Sync starts. Each session is handed its own
 * token in the MCP server entry it is given; a call to `/mcp` made with it is
 * attributed to that session's source (the agent, the work it performs, the
 * extension that ordered the work) in receipts and in any work it orders, and
 * opens that session's project only.
 *
 * The endpoint asks a {@linkcode SessionTokens}; what starts sessions issues
 * and revokes tokens in a {@linkcode SessionTokenRegistry}, held in memory by
 * the installation's owner, so a token dies with the process that issued it.
 *
 * @module
 */
import type { Source } from "../types.ts";

/** What `/mcp` asks of a Bearer token that is not the installation's. */
export interface SessionTokens {
  /**
   * The source of the session `token` was issued to.
   *
   * @param token The Bearer token a request carries.
   * @returns The session's source, or null when no live session holds the token.
   */
  sourceOf(token: string): Promise<Source | null>;
  /**
   * The project the session `token` was issued for: the only one it opens.
   *
   * @param token The Bearer token a request carries.
   * @returns The project's folder, or null when no live session holds the token.
   */
  projectOf(token: string): Promise<string | null>;
}

/** Bytes of randomness in a session token. */
const TOKEN_BYTES = 32;

/**
 * Session tokens held in memory, each looked up by its SHA-256 digest, so
 * that finding one takes no time that depends on how much of a guess was right.
 */
export class SessionTokenRegistry implements SessionTokens {
  #grants = new Map<string, { source: Source; project: string }>();

  /**
   * Issues a token for a session.
   *
   * @param source Who calls with it: `{ kind: "agent", name, workKey, extensionId }`.
   * @param project The session's project folder (resolved): the one project the token opens.
   * @returns The token, to be handed to the session's agent and to nobody else.
   */
  async issue(source: Source, project: string): Promise<string> {
    const bytes = crypto.getRandomValues(new Uint8Array(TOKEN_BYTES));
    const token = btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_")
      .replace(/=+$/, "");
    this.#grants.set(await digest(token), { source: structuredClone(source), project });
    return token;
  }

  /**
   * Ends a token: calls made with it from now on are refused.
   *
   * @param token A token {@linkcode SessionTokenRegistry.issue} answered.
   */
  async revoke(token: string): Promise<void> {
    this.#grants.delete(await digest(token));
  }

  /**
   * The source of the session `token` was issued to.
   *
   * @param token The Bearer token a request carries.
   * @returns A copy of the session's source, or null when the token is not live.
   */
  async sourceOf(token: string): Promise<Source | null> {
    const grant = this.#grants.get(await digest(token));
    return grant === undefined ? null : structuredClone(grant.source);
  }

  /**
   * The project the session `token` was issued for.
   *
   * @param token The Bearer token a request carries.
   * @returns The project's folder, or null when the token is not live.
   */
  async projectOf(token: string): Promise<string | null> {
    return this.#grants.get(await digest(token))?.project ?? null;
  }
}

/**
 * A token's SHA-256 digest, hex.
 *
 * @param token Any string.
 */
export async function digest(token: string): Promise<string> {
  const bytes = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(token));
  return Array.from(new Uint8Array(bytes), (b) => b.toString(16).padStart(2, "0")).join("");
}
