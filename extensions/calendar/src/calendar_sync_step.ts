import type {
  CalendarAccount,
  Coverage,
  Json,
  ParsedEvent,
  RecordStore,
  StoredRecord,
} from "./account_types.ts";
import { calendarFile } from "./calendar_file.ts";
import { OWNER_KEY, ownerAddresses } from "./owner_addresses.ts";
import { calendarWindow } from "./calendar_window.ts";
import { eventExclusion } from "./event_exclusion.ts";
import { EVENT_KIND, type EventRecord, eventRecord } from "./event_record.ts";

/** The record keeping which files were read, as what, and which could not be. */
export const STATUS_KEY = "calendar.status/sync";

/** What one step answers the task runner. */
export interface CalendarSyncAnswer {
  /** Present while work is left: the payload of the next step, as `{ continue: … }`. */
  continue?: Json;
  coverage: Coverage;
}

/** Options for {@link calendarSyncStep}. */
export interface CalendarSyncStepOptions {
  /** Now, in ms since the epoch. */
  now: number;
  /** Read again, in the first step, files that failed before although they did not change. */
  retryFailed?: boolean;
  /** Records a step may change; 90 by default (a call may change 99). */
  changesPerStep?: number;
  /** Files a step parses at most; 64 by default. */
  parsePerStep?: number;
  /** Paths per `account.parseCalendar` call; 16 by default (the host takes 32). */
  parseBatch?: number;
}

/** A calendar file as it was read: its size and mtime, and the day and owner it was read for. */
interface FileEntry {
  path: string;
  size: number;
  mtime: number | null;
  /** `<window day>|<owner addresses>`: reading it again is due when either changes. */
  pass: string;
}

interface FailedFile {
  path: string;
  size: number;
  mtime: number | null;
  reason: string;
}

/** One change to the records, and the file it belongs to (null for removals by time or loss). */
type Change =
  | { file: string | null; write: EventRecord }
  | { file: string | null; remove: string };

const REASONS_SHOWN = 20;
const MAX_STEPS = 2_000;

/**
 * One step of the Calendar applet's `sync` task. It lists the account's `.ics` files, reads
 * (through the platform's parser) those that are new or changed, or all of them once a day as
 * the window moves and whenever the owner's addresses change, and keeps one
 * `calendar.event/<key>` record per occurrence in the window that is not cancelled, declined by
 * the owner or ended. Records of files that went away, and occurrences that ended since, are
 * removed without reading anything. At most `changesPerStep` records change a step; what is
 * left is found again by the next one, so the state it carries is only a step count.
 */
export async function calendarSyncStep(
  account: CalendarAccount,
  memory: RecordStore,
  state: Json,
  options: CalendarSyncStepOptions,
): Promise<CalendarSyncAnswer> {
  const budget = options.changesPerStep ?? 90;
  const parsePerStep = options.parsePerStep ?? 64;
  const parseBatch = options.parseBatch ?? 16;
  const step = stepOf(state);
  const now = options.now;
  const window = calendarWindow(now);

  const files = await listCalendars(account);
  const owner = ownerAddresses((await memory.record(OWNER_KEY))?.fields);
  const pass = `${window.from.slice(0, 10)}|${owner.join(",")}`;
  const status = await memory.record(STATUS_KEY);
  const old = statusOf(await memory.content(STATUS_KEY));
  const existing = await readEvents(memory);

  const indexed = new Map(old.files.map((f) => [f.path, f]));
  const failedBefore = new Map(old.failures.map((f) => [f.path, f]));
  const current = new Map(files.map((f) => [f.path, f]));
  const done = new Map<string, FileEntry>();
  const knownFailed = new Map<string, FailedFile>();
  const toParse: typeof files = [];
  for (const file of files) {
    const entry = indexed.get(file.path);
    if (entry && entry.size === file.size && entry.mtime === file.mtime && entry.pass === pass) {
      done.set(file.path, entry);
      continue;
    }
    const failed = failedBefore.get(file.path);
    const retry = options.retryFailed && step === 0;
    if (failed && !retry && failed.size === file.size && failed.mtime === file.mtime) {
      knownFailed.set(file.path, failed);
      continue;
    }
    toParse.push(file);
  }

  // Removals that need no reading: files gone, occurrences ended since.
  const changes: Change[] = [];
  for (const record of existing.values()) {
    const file = typeof record.fields.file === "string" ? record.fields.file : null;
    const end = typeof record.fields.end === "string" ? Date.parse(record.fields.end) : NaN;
    if (file === null || !current.has(file) || end <= now) {
      changes.push({ file: null, remove: record.key });
    }
  }

  // Read what is due, and compare each file's occurrences with the records it has.
  const parsing = toParse.slice(0, parsePerStep);
  const batches: string[][] = [];
  for (let i = 0; i < parsing.length; i += parseBatch) {
    batches.push(parsing.slice(i, i + parseBatch).map((f) => f.path));
  }
  const results = (await Promise.all(batches.map((paths) => account.parseCalendar(paths, window))))
    .flat();
  const newFailures = new Map<string, FailedFile>();
  const parsedOk = new Map<string, FileEntry>();
  const removing = new Set(changes.map((c) => "remove" in c ? c.remove : ""));
  const claimed = new Set<string>();
  for (const result of results) {
    const file = current.get(result.path);
    if (!file) continue;
    if (!result.ok) {
      newFailures.set(file.path, { ...file, reason: result.reason });
      continue;
    }
    parsedOk.set(file.path, { ...file, pass });
    const desired = new Map<string, EventRecord>();
    for (const event of result.value as ParsedEvent[]) {
      if (eventExclusion(event, owner, now) !== null) continue;
      const record = eventRecord(event, file.path, owner);
      // The same occurrence in two files (a copy left behind) is kept once, from the first.
      if (claimed.has(record.key) && !desired.has(record.key)) continue;
      claimed.add(record.key);
      desired.set(record.key, record);
    }
    for (const record of desired.values()) {
      const before = existing.get(record.key);
      if (
        !before || before.title !== record.title ||
        JSON.stringify(before.fields) !== JSON.stringify(record.fields)
      ) changes.push({ file: file.path, write: record });
    }
    for (const record of existing.values()) {
      if (
        record.fields.file === file.path && !desired.has(record.key) && !removing.has(record.key)
      ) {
        changes.push({ file: file.path, remove: record.key });
      }
    }
  }

  // Carry out changes while they fit; a file counts as read once all of its changes are done.
  const failures = [...knownFailed.values(), ...newFailures.values()]
    .sort((a, b) => a.path < b.path ? -1 : 1);
  const room = budget - 1; // one for the status record
  const applied = changes.slice(0, room);
  const left = changes.slice(room);
  const unfinished = new Set(left.map((c) => c.file));
  for (const change of applied) {
    if ("write" in change) {
      const { key, title, fields, content } = change.write;
      await memory.write({ key, title, fields, content });
    } else await memory.remove(change.remove);
  }
  for (const [path, entry] of parsedOk) if (!unfinished.has(path)) done.set(path, entry);
  const next = {
    files: [...done.values()].sort((a, b) => a.path < b.path ? -1 : 1),
    failures,
  };
  const content = JSON.stringify(next);
  const title = failures.length === 0
    ? `Read ${done.size} of ${files.length} calendar files`
    : `Read ${done.size} of ${files.length} calendar files; ${failures.length} could not be read`;
  if (content !== JSON.stringify(old) || status?.title !== title) {
    await memory.write({
      key: STATUS_KEY,
      title,
      fields: { window: window.from.slice(0, 10), owner, read: done.size, failed: failures.length },
      content,
    });
  }

  const coverage: Coverage = {
    read: done.size,
    of: files.length,
    failed: failures.length,
    reasons: failures.slice(0, REASONS_SHOWN).map((f) => ({ item: f.path, reason: f.reason })),
    items: { one: "calendar file", other: "calendar files" },
  };
  const pending = left.length + (toParse.length - parsing.length) +
    [...parsedOk.keys()].filter((p) => unfinished.has(p)).length;
  if (pending === 0) return { coverage };
  if (applied.length === 0 && newFailures.size === 0 && parsedOk.size === 0) {
    throw new Error(
      `The calendar sync could not go on: ${pending} changes are left and this step could carry out none of them. Run it again.`,
    );
  }
  if (step + 1 >= MAX_STEPS) {
    throw new Error(
      `The calendar sync stopped after ${MAX_STEPS} steps with ${pending} changes left: the calendar kept changing while it was read. The next run goes on from here.`,
    );
  }
  return { continue: { step: step + 1 }, coverage };
}

function stepOf(state: Json): number {
  if (state !== null && typeof state === "object" && !Array.isArray(state)) {
    const step = state.step;
    if (typeof step === "number" && Number.isInteger(step) && step >= 0) return step;
  }
  return 0;
}

async function listCalendars(
  account: CalendarAccount,
): Promise<{ path: string; size: number; mtime: number | null }[]> {
  const out: { path: string; size: number; mtime: number | null }[] = [];
  let cursor: string | null = null;
  do {
    const page: Awaited<ReturnType<CalendarAccount["list"]>> = await account.list(
      cursor === null ? { recursive: true } : { recursive: true, cursor },
    );
    for (const entry of page.entries) {
      if (entry.kind === "file" && calendarFile(entry.path)) {
        out.push({ path: entry.path, size: entry.size, mtime: entry.mtime });
      }
    }
    cursor = page.cursor;
  } while (cursor !== null);
  return out.sort((a, b) => a.path < b.path ? -1 : a.path > b.path ? 1 : 0);
}

async function readEvents(memory: RecordStore): Promise<Map<string, StoredRecord>> {
  const out = new Map<string, StoredRecord>();
  let cursor: string | undefined;
  do {
    const page = await memory.list({ kind: EVENT_KIND, limit: 500, ...(cursor ? { cursor } : {}) });
    for (const record of page.records) out.set(record.key, record);
    cursor = page.cursor;
  } while (cursor);
  return out;
}

function statusOf(content: string | null): { files: FileEntry[]; failures: FailedFile[] } {
  try {
    const value = JSON.parse(content ?? "");
    const files = Array.isArray(value?.files) ? value.files : [];
    const failures = Array.isArray(value?.failures) ? value.failures : [];
    return {
      files: files.filter((f: FileEntry) =>
        typeof f?.path === "string" && typeof f.size === "number" && typeof f.pass === "string"
      ),
      failures: failures.filter((f: FailedFile) =>
        typeof f?.path === "string" && typeof f.size === "number" && typeof f.reason === "string"
      ),
    };
  } catch {
    return { files: [], failures: [] };
  }
}
