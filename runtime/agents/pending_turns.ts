/**
 * A person's messages the agent has not been sent yet — typed while the
 * agent was being raised, waited for a sign-in, or could not start — kept
 * whole in the installation beside the session's pointer, so that they
 * survive a restart and are sent once the agent's session opens. The
 * pointer lists them (`pending`, each text cut to what a pointer keeps) for
 * Chat to show; the whole text, in parts that each fit one stored value, is
 * here.
 *
 * @module
 */
import type { PendingTurn } from "../agent_session.ts";
import { cutText } from "../internal/cut_text.ts";
import { pendingTurnKey, pendingTurnsPrefix } from "./keys.ts";

/** Characters of one stored part: two bytes each at most, well within a stored value. */
const PART_CHARS = 16_000;
/** Characters of a pending turn's text as its session's pointer lists it. */
export const PENDING_PREVIEW_CHARS = 1_000;

/**
 * Keeps a message's whole text, in parts.
 *
 * @param kv The installation's KV.
 * @param project The project's resolved folder.
 * @param key The session's key.
 * @param turn The turn's id and time; its text is `text`.
 * @param text The message, whole.
 * @returns The turn as the pointer lists it.
 */
export async function keepPendingTurn(
  kv: Deno.Kv,
  project: string,
  key: string,
  turn: { id: string; at: string },
  text: string,
): Promise<PendingTurn> {
  const op = kv.atomic();
  for (let at = 0, part = 0; at < text.length || part === 0; at += PART_CHARS, part++) {
    op.set(pendingTurnKey(project, key, turn.id, part), text.slice(at, at + PART_CHARS));
  }
  const result = await op.commit();
  if (!result.ok) throw new Error(`The message for ${key} could not be kept; send it again`);
  return { ...turn, text: cutText(text, PENDING_PREVIEW_CHARS) };
}

/**
 * A pending turn's whole text.
 *
 * @returns It, or null when it is not kept (it was sent meanwhile).
 */
export async function readPendingTurn(
  kv: Deno.Kv,
  project: string,
  key: string,
  id: string,
): Promise<string | null> {
  const parts: string[] = [];
  for await (const entry of kv.list<string>({ prefix: pendingTurnsPrefix(project, key, id) })) {
    parts.push(entry.value);
  }
  return parts.length === 0 ? null : parts.join("");
}

/** Forgets a pending turn once it was sent. */
export async function forgetPendingTurn(
  kv: Deno.Kv,
  project: string,
  key: string,
  id: string,
): Promise<void> {
  const op = kv.atomic();
  for await (const entry of kv.list({ prefix: pendingTurnsPrefix(project, key, id) })) {
    op.check(entry).delete(entry.key);
  }
  // Only this process sends a session's turns: a part changed meanwhile is not one it kept.
  await op.commit();
}
