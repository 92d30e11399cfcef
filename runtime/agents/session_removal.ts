/**
 * Putting a conversation away: archiving it (its pointer says so, and Chat
 * lists it apart, under Archived, until a person restores it) or deleting
 * it (its pointer, its stored transcript and the messages that wait to be
 * sent leave the installation). A kept `chat.conversation` record is the
 * project's and stays: deleting a conversation never touches project memory.
 *
 * Only a session nothing moves may be put away: one that is running, or
 * waiting for a person, is stopped first (its turn cancelled).
 *
 * @module
 */
import type { AgentSession } from "../agent_session.ts";
import { ConflictError, NotFoundError } from "../errors.ts";
import { agentSessionKey, pendingTurnsPrefix, transcriptPrefix } from "./keys.ts";
import { updateSession } from "./session_store.ts";

/** How many stored entries one commit deletes. */
const DELETE_BATCH = 200;

/**
 * Refuses to put away a session something still moves.
 *
 * @param session The session's pointer.
 * @param doing What the person asked: `archive`, `delete`.
 * @throws {ConflictError} when it is running, waiting for a person, or not started yet.
 */
export function checkStopped(session: AgentSession, doing: "archive" | "delete"): void {
  if (session.state === "running" || session.state === "waiting" || session.state === "ordered") {
    const what = session.state === "waiting" ? "waits for a person" : "is running";
    throw new ConflictError(
      `The conversation ${session.key} ${what}: stop it first (Cancel its turn), then ` +
        `${doing} it`,
    );
  }
}

/**
 * Archives a session, or restores an archived one to Chat's list.
 *
 * @param kv The installation's KV.
 * @param project The project's resolved folder.
 * @param key The session's key.
 * @param archived True to archive it, false to restore it.
 * @param now The clock.
 * @returns The pointer as written.
 * @throws {NotFoundError} when there is no such session.
 * @throws {ConflictError} when archiving one that is running or waiting.
 */
export async function archiveSession(
  kv: Deno.Kv,
  project: string,
  key: string,
  archived: boolean,
  now: () => Date,
): Promise<AgentSession> {
  return await updateSession(kv, project, key, (session) => {
    if (archived) checkStopped(session, "archive");
    if (Boolean(session.archivedAt) === archived) return null;
    return {
      ...session,
      archivedAt: archived ? now().toISOString() : null,
      updatedAt: now().toISOString(),
    };
  });
}

/**
 * Deletes a session from the installation: its pointer first (checked
 * unchanged, so one that started meanwhile is not deleted), then its stored
 * transcript and its messages not sent yet. Its kept record, if any, stays
 * in the project's memory.
 *
 * @param kv The installation's KV.
 * @param project The project's resolved folder.
 * @param key The session's key.
 * @returns The pointer as it was.
 * @throws {NotFoundError} when there is no such session.
 * @throws {ConflictError} when it is running or waiting, or changed while it was deleted.
 */
export async function deleteSession(
  kv: Deno.Kv,
  project: string,
  key: string,
): Promise<AgentSession> {
  const pointerKey = agentSessionKey(project, key);
  const entry = await kv.get<AgentSession>(pointerKey);
  if (entry.value === null) throw new NotFoundError(`There is no session ${key} in ${project}`);
  checkStopped(entry.value, "delete");
  const done = await kv.atomic().check(entry).delete(pointerKey).commit();
  if (!done.ok) {
    throw new ConflictError(`The conversation ${key} changed while it was deleted; try again`);
  }
  for (const prefix of [transcriptPrefix(project, key), pendingTurnsPrefix(project, key)]) {
    let batch: Deno.KvKey[] = [];
    for await (const stored of kv.list({ prefix }, { batchSize: DELETE_BATCH })) {
      batch.push(stored.key);
      if (batch.length === DELETE_BATCH) {
        await deleteAll(kv, batch);
        batch = [];
      }
    }
    await deleteAll(kv, batch);
  }
  return entry.value;
}

async function deleteAll(kv: Deno.Kv, keys: Deno.KvKey[]): Promise<void> {
  // A commit holds at most 1000 mutations; the batch is well within it.
  if (keys.length === 0) return;
  const op = kv.atomic();
  for (const key of keys) op.delete(key);
  await op.commit();
}
