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
 * The stored side is {@linkcode archiveSession} and {@linkcode deleteSession}
 * (what the CLI uses); {@linkcode archiveConversation} and
 * {@linkcode deleteConversation} put away a conversation the work performer
 * may hold alive in this run, its pointer written through the live session
 * and its idle agent stopped.
 *
 * @module
 */
import type { AgentSession } from "../agent_session.ts";
import { ConflictError, NotFoundError } from "../errors.ts";
import { agentSessionKey, pendingTurnsPrefix, transcriptPrefix } from "./keys.ts";
import { updateSession } from "./session_store.ts";
import type { LiveSession } from "./_live_session.ts";
import type { SessionWrites } from "./_session_writes.ts";

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

/** What putting away a conversation is given by the work performer that may hold it. */
export interface ConversationRemovalOptions {
  /** The installation's KV. */
  kv: Deno.Kv;
  /** The session, when it is alive in this run. */
  live: LiveSession | undefined;
  /** Where its pointer's changes are written and told. */
  writes: SessionWrites;
  /** The host's clock, in ms. */
  now: () => number;
}

/**
 * Archives a conversation (Chat lists it apart, under Archived), or
 * restores an archived one to the list; a live one through its own chain
 * of writes.
 *
 * @param project The project's resolved folder.
 * @param key The session's key.
 * @param archived True to archive it, false to restore it.
 * @param options The installation, the live session if any, and where changes go.
 * @throws {NotFoundError} when there is no such session.
 * @throws {ConflictError} when archiving one that is running or waits for a person.
 */
export async function archiveConversation(
  project: string,
  key: string,
  archived: boolean,
  options: ConversationRemovalOptions,
): Promise<void> {
  const { kv, live, writes, now } = options;
  if (live) {
    if (archived) checkStopped(live.pointer, "archive");
    if (live.working && archived) {
      throw new ConflictError(
        `The conversation ${key} is running: stop it first, then archive it`,
      );
    }
    await writes.change(live, {
      archivedAt: archived ? new Date(now()).toISOString() : null,
    });
    return;
  }
  writes.tell(await archiveSession(kv, project, key, archived, () => new Date(now())));
}

/**
 * Deletes a conversation from the installation: its pointer, its stored
 * transcript and its messages not sent yet. A live one's agent, kept for the
 * next turn, is stopped first and the session lets go of (`forget`). A
 * kept `chat.conversation` record stays in the project's memory.
 *
 * @param project The project's resolved folder.
 * @param key The session's key.
 * @param options The installation, the live session if any, and where the deletion is told.
 * @returns The pointer as it was.
 * @throws {NotFoundError} when there is no such session.
 * @throws {ConflictError} when it is running or waits for a person.
 */
export async function deleteConversation(
  project: string,
  key: string,
  options: ConversationRemovalOptions & {
    /** Drops the live session from the performer's memory. */
    forget: (live: LiveSession) => void;
  },
): Promise<AgentSession> {
  const { kv, live, writes } = options;
  if (live) {
    checkStopped(live.pointer, "delete");
    if (live.working || live.holds > 0) {
      throw new ConflictError(
        `The conversation ${key} is running: stop it first, then delete it`,
      );
    }
    clearTimeout(live.idle);
    options.forget(live);
    const acp = live.acp;
    live.acp = null;
    await acp?.close().catch(() => {});
    await live.writer.flush();
    await live.writes.catch(() => {});
  }
  const deleted = await deleteSession(kv, project, key);
  writes.tellDeleted(deleted);
  return deleted;
}

async function deleteAll(kv: Deno.Kv, keys: Deno.KvKey[]): Promise<void> {
  // A commit holds at most 1000 mutations; the batch is well within it.
  if (keys.length === 0) return;
  const op = kv.atomic();
  for (const key of keys) op.delete(key);
  await op.commit();
}
