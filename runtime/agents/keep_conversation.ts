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
import { getContent, getRecord, writeRecord } from "../memory/mod.ts";
import type { TranscriptEntry } from "../transcript.ts";
import { readWorkOrder } from "../work/mod.ts";
import { readTranscript } from "./transcript_store.ts";
import { readSession, updateSession } from "./session_store.ts";
import { transcriptText } from "./transcript_text.ts";
import { NotFoundError } from "../errors.ts";

/**
 * What Keep did: the record it names, its revision, and whether this Keep
 * wrote it (false when the record already held exactly what Keep would
 * write, so nothing was written and its revision stayed).
 */
export interface ConversationKept {
  /** The record's key, `chat.conversation/<session key>`. */
  key: string;
  /** Its kind, `chat.conversation`. */
  kind: string;
  /** Its id within the kind: the session's key. */
  id: string;
  /** Its revision after this Keep. */
  revision: number;
  /** True when this Keep wrote a new revision; false when nothing had changed since the last. */
  written: boolean;
}

/** The record key a session is kept as. */
export function conversationKey(sessionKey: string): string {
  return `chat.conversation/${sessionKey}`;
}

/**
 * Writes (or writes again) the `chat.conversation` record of a session. A
 * record that holds exactly what would be written (title, fields, content)
 * is left as it is: keeping a conversation again with nothing new makes no
 * new revision.
 *
 * @param memory The project's memory.
 * @param session The session's pointer.
 * @param transcript Its transcript and how many entries were dropped.
 * @param now The clock.
 * @returns What was kept, and whether it was written now.
 */
export async function writeConversation(
  memory: Deno.Kv,
  session: AgentSession,
  transcript: { entries: readonly TranscriptEntry[]; omitted: number },
  now: () => Date,
): Promise<ConversationKept> {
  const key = conversationKey(session.key);
  const fields: Record<string, string | number | null> = {
    agent: session.agent,
    source: session.source.kind,
    state: session.state,
    begunAt: session.createdAt,
    omitted: transcript.omitted,
  };
  // What a conversation a person began has none of is left out, rather than written as null.
  if (session.extensionId !== null) fields.extensionId = session.extensionId;
  if (session.orderKey !== null) fields.orderKey = session.orderKey;
  if (session.source.kind === "handler") fields.handler = session.source.handler;
  const order = session.orderKey ? await readWorkOrder(memory, session.orderKey) : null;
  if (order?.about) fields.about = order.about;
  const content = transcriptText(
    transcript.entries,
    SESSION_LIMITS.maxKeptChars,
    RECORD_LIMITS.maxContentBytes,
  );
  const kept = { key, kind: "chat.conversation", id: session.key };
  const before = await getRecord(memory, key);
  if (
    before !== null && before.title === session.title &&
    sameFields(before.fields, fields) && await getContent(memory, key) === content
  ) {
    return { ...kept, revision: before.revision, written: false };
  }
  const written = await writeRecord(memory, { key, title: session.title, fields, content }, {
    by: "person",
    now,
  });
  return { ...kept, revision: written.revision, written: true };
}

/** True when two records' fields hold the same values, whatever their order. */
function sameFields(a: Record<string, unknown>, b: Record<string, unknown>): boolean {
  const names = Object.keys(a);
  if (names.length !== Object.keys(b).length) return false;
  return names.every((name) =>
    Object.hasOwn(b, name) && JSON.stringify(a[name]) === JSON.stringify(b[name])
  );
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
 * @returns The session's pointer, its `keptAs` naming the record, and what was kept.
 * @throws {NotFoundError} when there is no such session.
 * @throws {StorageError} when either disk refuses; the session is left as it was.
 */
export async function keepConversation(
  kv: Deno.Kv,
  memory: Deno.Kv,
  project: string,
  key: string,
  now: () => Date,
): Promise<{ session: AgentSession; kept: ConversationKept }> {
  const session = await readSession(kv, project, key);
  if (!session) throw new NotFoundError(`There is no session ${key} in ${project}`);
  const recordKey = conversationKey(session.key);
  const transcript = await readTranscript(kv, project, key);
  if (session.keptAs === recordKey) {
    // Kept before: the pointer already names the record; only the record may need writing.
    return { session, kept: await writeConversation(memory, session, transcript, now) };
  }
  // The pointer first, put back if the record cannot be written: a disk
  // that refuses either leaves neither written, as its refusal says.
  const kept = await updateSession(kv, project, key, (s) => ({
    ...s,
    keptAs: recordKey,
    updatedAt: now().toISOString(),
  }));
  let written: ConversationKept;
  try {
    written = await writeConversation(memory, session, transcript, now);
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
  return { session: kept, kept: written };
}
