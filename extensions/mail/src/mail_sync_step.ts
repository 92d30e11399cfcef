import type {
  Coverage,
  Json,
  MailAccount,
  Parsed,
  ParsedMessage,
  RecordStore,
} from "./account_types.ts";
import { type IndexEntry, indexEntry } from "./index_entry.ts";
import { listMaildir } from "./list_maildir.ts";
import { type MaildirFile, maildirFile } from "./maildir_file.ts";
import { messageBlock } from "./message_block.ts";
import {
  type ExistingRecord,
  type PlannedMessage,
  planThreads,
  type StepBudget,
  THREAD_KIND,
} from "./plan_threads.ts";

/** The record keeping the messages that could not be read, so they are not read again unchanged. */
export const STATUS_KEY = "mail.status/sync";

/** What one step answers the task runner. */
export interface MailSyncAnswer {
  /** Present while work is left: the payload of the next step, as `{ continue: … }`. */
  continue?: Json;
  coverage: Coverage;
}

/** Options for {@link mailSyncStep}. */
export interface MailSyncStepOptions {
  /**
   * Read again, in the first step, messages that failed before although their file did not
   * change (a person's run).
   */
  retryFailed?: boolean;
  /**
   * Records a step may change; 300 by default. A step also stays within what one commit holds
   * (1,000 stored entries, 700 KiB), counting each record's share from above.
   */
  changesPerStep?: number;
  /**
   * Messages a step parses at most; 512 by default. A step parses fewer when the conversations
   * of those it parsed would fill its records.
   */
  parsePerStep?: number;
  /** Paths per `account.parseMail` call; 16 by default (the host takes 32). */
  parseBatch?: number;
}

/** A message that could not be read, with the file's size and mtime when it failed. */
interface FailedFile {
  file: string;
  size: number;
  mtime: number | null;
  reason: string;
}

const MAX_STEPS = 5_000;
/**
 * What one commit holds (1,000 stored entries, 700 KiB of keys and values, 72 KiB of keys),
 * less the status record's share and each kind's count of commits the host adds.
 */
const COMMIT: Omit<StepBudget, "records"> = {
  entries: 990,
  bytes: 640 * 1024,
  keyBytes: 68 * 1024,
};
const REASONS_SHOWN = 20;
const FAILURES_KEPT = 100;
const NON_ASCII = /[\u0080-\uffff]/;
/** The fewest messages a round parses after the step's first. */
const MIN_ROUND = 8;

/**
 * One step of the Mail applet's `sync` task. It lists the Maildir, compares every message
 * file's name (without flags), size and mtime with the index the thread records keep, and
 * parses only what is new or changed: a message renamed for its flags, or moved between new/
 * and cur/, is updated from the index. It then threads the messages, writes the thread records
 * whose title or fields changed (each one's content rebuilt from the blocks it already held and
 * those just parsed), and removes threads whose messages are all gone, at most
 * `changesPerStep` records a step. What is left is found again by the next step, so the state
 * it carries is only a step count.
 *
 * @param state The `continue` value of the step before, or null for the first.
 */
export async function mailSyncStep(
  account: MailAccount,
  memory: RecordStore,
  state: Json,
  options: MailSyncStepOptions = {},
): Promise<MailSyncAnswer> {
  const budget = options.changesPerStep ?? 300;
  const parsePerStep = options.parsePerStep ?? 512;
  const parseBatch = options.parseBatch ?? 16;
  const step = stepOf(state);
  // Failed messages are tried again once, in the attempt's first step, not in every step.
  const retry = options.retryFailed === true && step === 0;

  const files = await listMaildir(account);
  const existing = await readThreads(memory);
  const status = await memory.record(STATUS_KEY);
  const oldFailures = failuresOf(status?.fields.failures);

  // The index: each message the thread records hold, by its identity; and which record each
  // Message-ID a record's messages name is in, with the record's text's length, so the parse
  // rounds can count what a parsed message joining a thread rewrites.
  const index = new Map<string, PlannedMessage>();
  const recordOf = new Map<string, string>();
  const recordChars = new Map<string, number>();
  for (const record of existing.values()) {
    const thread = typeof record.fields.thread === "string" ? record.fields.thread : null;
    const list = Array.isArray(record.fields.messages) ? record.fields.messages : [];
    let offset = 0;
    for (const value of list) {
      const entry = indexEntry(value);
      if (!entry) continue;
      const file = maildirFile(entry.file, entry.size, entry.mtime);
      if (file) {
        index.set(file.id, {
          id: file.id,
          entry,
          oldKey: record.key,
          oldThread: thread,
          oldOffset: offset,
          change: null,
          block: null,
        });
      }
      offset += entry.chars;
      for (const id of [entry.messageId, entry.parent, entry.root]) {
        if (id !== null) recordOf.set(id, record.key);
      }
    }
    recordChars.set(record.key, offset);
  }
  const failedBefore = new Map<string, FailedFile>();
  for (const failure of oldFailures) {
    const file = maildirFile(failure.file, failure.size, failure.mtime);
    if (file) failedBefore.set(file.id, failure);
  }

  // Compare: what is unchanged, renamed, gone, and what must be parsed.
  const messages = new Map<string, PlannedMessage>();
  const vanished = new Map<number, string>();
  let changes = 0;
  const toParse: MaildirFile[] = [];
  const knownFailed = new Map<string, FailedFile>();
  const current = new Set<string>();
  for (const file of files) {
    current.add(file.id);
    const known = index.get(file.id);
    if (known && known.entry.size === file.size && known.entry.mtime === file.mtime) {
      if (known.entry.file === file.path) messages.set(file.id, known);
      else {
        messages.set(file.id, {
          ...known,
          entry: { ...known.entry, file: file.path, folder: file.folder, flags: file.flags },
          change: changes++,
        });
      }
      continue;
    }
    if (known) messages.set(file.id, known); // a failed read keeps what was read before
    const failed = failedBefore.get(file.id);
    if (
      failed && !retry && failed.size === file.size && failed.mtime === file.mtime
    ) {
      knownFailed.set(file.id, { ...failed, file: file.path });
      continue;
    }
    toParse.push(file);
  }
  for (const [id, message] of index) {
    if (!current.has(id)) vanished.set(changes++, message.oldKey!);
  }

  // Parse the newest first, unless renames and removals already fill the step: a round at a
  // time, while the conversations the parsed messages belong to still leave room for a round
  // more, and their text for more, so a step parses about what its commit can hold and each
  // message is parsed once.
  toParse.sort((a, b) => (b.mtime ?? 0) - (a.mtime ?? 0) || (a.path < b.path ? -1 : 1));
  const round = parseBatch * 4;
  let parsedBytes = 0;
  const rewritten = new Set<string>();
  const parsing: MaildirFile[] = [];
  const results: Parsed<ParsedMessage>[] = [];
  const conversations = new Set<string>();
  while (parsing.length < Math.min(parsePerStep, toParse.length)) {
    // Records the parsed messages may still touch; one is kept for the status record.
    const room = budget - changes - conversations.size - 1;
    // A round of a few messages costs a crossing for little: the next step takes them.
    if (room < (parsing.length === 0 ? 1 : MIN_ROUND)) break;
    if (parsedBytes > COMMIT.bytes) break;
    const size = Math.min(round, room, parsePerStep - parsing.length);
    const take = toParse.slice(parsing.length, parsing.length + size);
    parsing.push(...take);
    const batches: string[][] = [];
    for (let i = 0; i < take.length; i += parseBatch) {
      batches.push(take.slice(i, i + parseBatch).map((file) => file.path));
    }
    for (const answer of await Promise.all(batches.map((paths) => account.parseMail(paths)))) {
      for (const result of answer) {
        results.push(result);
        if (!result.ok) continue;
        conversations.add(conversationOf(result.value, result.path));
        // A new thread's share of the commit: its text, and about 1.6 KB of headers, fields
        // and metadata; joining a thread read before, that thread's text is written again too
        // (counted as the plan counts it, 3 bytes a character).
        const text = result.value.text;
        parsedBytes += (NON_ASCII.test(text) ? 3 : 1) * text.length + 1600;
        const { messageId, inReplyTo, references } = result.value;
        for (const id of [messageId, inReplyTo, ...references]) {
          const joined = id === null ? undefined : recordOf.get(id);
          if (joined === undefined || rewritten.has(joined)) continue;
          rewritten.add(joined);
          parsedBytes += 3 * (recordChars.get(joined) ?? 0);
        }
      }
    }
  }
  const byPath = new Map(parsing.map((file) => [file.path, file]));
  const newFailures = new Map<string, FailedFile>();
  const parsedChange = new Map<string, number>();
  for (const result of results) {
    const file = byPath.get(result.path);
    if (!file) continue;
    if (!result.ok) {
      // Kept with the file as listed, so the same file unchanged is not read again.
      newFailures.set(file.id, {
        file: file.path,
        size: file.size,
        mtime: file.mtime,
        reason: result.reason,
      });
      continue;
    }
    const planned = parsedMessage(file, result.value);
    const known = index.get(file.id);
    planned.oldKey = known?.oldKey ?? null;
    planned.oldThread = known?.oldThread ?? null;
    planned.change = changes++;
    parsedChange.set(file.id, planned.change);
    messages.set(file.id, planned);
  }

  const failures = [...knownFailed.values(), ...newFailures.values()]
    .sort((a, b) => a.file < b.file ? -1 : 1);
  const keptFailures = failures.slice(0, FAILURES_KEPT);
  const statusChanged = JSON.stringify(oldFailures) !== JSON.stringify(keptFailures);

  const plan = planThreads([...messages.values()], existing, vanished, {
    budget: { records: budget - (statusChanged ? 1 : 0), ...COMMIT },
  });

  // Write what changed, each content rebuilt from blocks already stored and those just parsed.
  const contents = new Map<string, string>();
  for (const record of plan.writes) {
    for (const message of record.messages) {
      if (message.block === null && message.oldKey !== null && !contents.has(message.oldKey)) {
        contents.set(message.oldKey, "");
      }
    }
  }
  await Promise.all([...contents.keys()].map(async (key) => {
    contents.set(key, (await memory.content(key)) ?? "");
  }));
  for (const record of plan.writes) {
    const content = record.messages.map((m) =>
      m.block ??
        (contents.get(m.oldKey!) ?? "").slice(m.oldOffset, m.oldOffset + m.entry.chars)
    ).join("");
    await memory.write({ key: record.key, title: record.title, fields: record.fields, content });
  }
  for (const key of plan.removes) await memory.remove(key);
  if (statusChanged) {
    await memory.write({
      key: STATUS_KEY,
      title: failures.length === 0
        ? "Every message was read"
        : `${failures.length} message${failures.length === 1 ? "" : "s"} could not be read`,
      fields: { failed: failures.length, failures: keptFailures as unknown as Json },
    });
  }

  // Coverage: a file is read when the records hold it as it is now.
  let read = 0;
  const failedPaths = new Set(failures.map((f) => f.file));
  for (const file of files) {
    if (failedPaths.has(file.path)) continue;
    const message = messages.get(file.id);
    if (!message) continue;
    if (message.change !== null && !plan.applied.has(message.change)) continue;
    if (message.entry.size === file.size && message.entry.mtime === file.mtime) read++;
    else if (parsedChange.has(file.id) && plan.applied.has(parsedChange.get(file.id)!)) read++;
  }
  const coverage: Coverage = {
    read,
    of: files.length,
    failed: failures.length,
    reasons: failures.slice(0, REASONS_SHOWN).map((f) => ({ item: f.file, reason: f.reason })),
    items: { one: "message", other: "messages" },
  };

  const pending = changes - plan.applied.size + (toParse.length - parsing.length);
  if (pending === 0) return { coverage };
  const progressed = plan.applied.size > 0 || newFailures.size > 0;
  if (!progressed) {
    throw new Error(
      `The mail sync could not go on: ${pending} changes are left and this step could carry out none of them. Run it again; if this repeats, the Maildir is changing faster than it can be read.`,
    );
  }
  if (step + 1 >= MAX_STEPS) {
    throw new Error(
      `The mail sync stopped after ${MAX_STEPS} steps with ${pending} changes left: the Maildir kept changing while it was read. The next run goes on from here.`,
    );
  }
  return { continue: { step: step + 1 }, coverage };
}

/**
 * A name for the conversation a parsed message belongs to, as far as the message itself tells:
 * the first of its References, or what it replies to, or itself. Two messages of one
 * conversation may get two names (a reply naming only its parent); never one name for two.
 */
function conversationOf(message: ParsedMessage, path: string): string {
  return message.references[0] ?? message.inReplyTo ?? message.messageId ?? `file:${path}`;
}

function stepOf(state: Json): number {
  if (state !== null && typeof state === "object" && !Array.isArray(state)) {
    const step = state.step;
    if (typeof step === "number" && Number.isInteger(step) && step >= 0) return step;
  }
  return 0;
}

function parsedMessage(file: MaildirFile, message: ParsedMessage): PlannedMessage {
  const block = messageBlock(message);
  const parent = message.references.at(-1) ?? message.inReplyTo ?? null;
  const first = message.references[0] ?? null;
  // The size and mtime as listed, not as the parser saw them: a file changed between the two is
  // then found changed again by the next comparison and read once more, and the two answers'
  // mtimes never have to agree to the millisecond for an unchanged file to stay unread.
  const entry: IndexEntry = {
    file: file.path,
    size: file.size,
    mtime: file.mtime,
    messageId: message.messageId,
    parent,
    root: first !== null && first !== parent ? first : null,
    date: message.date,
    from: message.from?.address ?? null,
    subject: message.subject,
    folder: file.folder,
    flags: file.flags,
    chars: block.length,
  };
  return {
    id: file.id,
    entry,
    oldKey: null,
    oldThread: null,
    oldOffset: 0,
    change: null,
    block,
  };
}

async function readThreads(memory: RecordStore): Promise<Map<string, ExistingRecord>> {
  const out = new Map<string, ExistingRecord>();
  let cursor: string | undefined;
  do {
    const page = await memory.list({
      kind: THREAD_KIND,
      limit: 500,
      ...(cursor ? { cursor } : {}),
    });
    for (const record of page.records) {
      out.set(record.key, { key: record.key, title: record.title, fields: record.fields });
    }
    cursor = page.cursor;
  } while (cursor);
  return out;
}

function failuresOf(value: unknown): FailedFile[] {
  if (!Array.isArray(value)) return [];
  return value.filter((f): f is FailedFile =>
    typeof f === "object" && f !== null && typeof f.file === "string" &&
    typeof f.size === "number" && typeof f.reason === "string"
  ).map((f) => ({ file: f.file, size: f.size, mtime: f.mtime ?? null, reason: f.reason }));
}
