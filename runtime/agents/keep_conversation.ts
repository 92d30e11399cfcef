/**
 * Keeping a conversation: the third layer of a session (seed 000 §6). Only
 * a person keeps one, and then it is written as a `chat.conversation`
 * record in the project's memory — title, who began it and with which agent
 * as fields, the transcript as text as its content — so it travels with the
 * repository. Nothing is written because it ran.
 *
 * The `chat` prefix is Sync's own: the host writes this kind as a person's
 * write (`updatedBy: "person"`), outside any handler call, so no package's
 * rule on its own kinds is involved; a package reads it only if a package
 * named `chat` publishes the kind in the project.
 *
 * @module
 */
import type { AgentSession } from "../agent_session.ts";
import { RECORD_LIMITS, SESSION_LIMITS } from "../limits.ts";
import { writeRecord } from "../memory/mod.ts";
import type { TranscriptEntry } from "../transcript.ts";
import { readWorkOrder } from "../work/mod.ts";
import { readTranscript } from "./transcript_store.ts";
import { readSession, updateSession } from "./session_store.ts";
import { transcriptText } from "./transcript_text.ts";
import { NotFoundError } from "../errors.ts";

/** The record key a session is kept as. */
export function conversationKey(sessionKey: string): string {
  return `chat.conversation/${sessionKey}`;
}

/**
 * Writes (or writes again) the `chat.conversation` record of a session.
 *
 * @param memory The project's memory.
 * @param session The session's pointer.
 * @param transcript Its transcript and how many entries were dropped.
 * @param now The clock.
 * @returns The record's key.
 */
export async function writeConversation(
  memory: Deno.Kv,
  session: AgentSession,
  transcript: { entries: readonly TranscriptEntry[]; omitted: number },
  now: () => Date,
): Promise<string> {
  const key = conversationKey(session.key);
  const fields: Record<string, string | number | null> = {
    agent: session.agent,
    source: session.source.kind,
    extensionId: session.extensionId,
    orderKey: session.orderKey,
    state: session.state,
    begunAt: session.createdAt,
    omitted: transcript.omitted,
  };
  if (session.source.kind === "handler") fields.handler = session.source.handler;
  const order = session.orderKey ? await readWorkOrder(memory, session.orderKey) : null;
  if (order?.about) fields.about = order.about;
  await writeRecord(memory, {
    key,
    title: session.title,
    fields,
    content: transcriptText(
      transcript.entries,
      SESSION_LIMITS.maxKeptChars,
      RECORD_LIMITS.maxContentBytes,
    ),
  }, { by: "person", now });
  return key;
}

/**
 * Keeps a session as it is stored (the CLI's way; Chat keeps it through the
 * performer, which also has the entries not written yet).
 *
 * @param kv The installation's KV.
 * @param memory The project's memory.
 * @param project The project's resolved folder.
 * @param key The session's key.
 * @param now The clock.
 * @returns The session's pointer, its `keptAs` naming the record.
 * @throws {NotFoundError} when there is no such session.
 * @throws {StorageError} when either disk refuses; the session is left as it was.
 */
export async function keepConversation(
  kv: Deno.Kv,
  memory: Deno.Kv,
  project: string,
  key: string,
  now: () => Date,
): Promise<AgentSession> {
  const session = await readSession(kv, project, key);
  if (!session) throw new NotFoundError(`There is no session ${key} in ${project}`);
  const recordKey = conversationKey(session.key);
  // The pointer first, put back if the record cannot be written: a disk
  // that refuses either leaves neither written, as its refusal says.
  const kept = await updateSession(kv, project, key, (s) => ({
    ...s,
    keptAs: recordKey,
    updatedAt: now().toISOString(),
  }));
  try {
    await writeConversation(memory, session, await readTranscript(kv, project, key), now);
  } catch (error) {
    await updateSession(
      kv,
      project,
      key,
      (s) =>
        s.keptAs === recordKey && s.updatedAt === kept.updatedAt
          ? { ...s, keptAs: session.keptAs, updatedAt: session.updatedAt }
          : null,
    ).catch(() => {});
    throw error;
  }
  return kept;
}
