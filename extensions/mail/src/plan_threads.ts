import type { Json } from "./account_types.ts";
import type { IndexEntry } from "./index_entry.ts";
import { junkFolder } from "./junk_folder.ts";
import { threadKey } from "./thread_key.ts";
import { type ThreadLinks, threadMessages } from "./thread_messages.ts";

/** The kind of the Mail applet's thread records. */
export const THREAD_KIND = "mail.thread";

/** One message as the step will leave it, with where it was and what changed it. */
export interface PlannedMessage {
  /** Its identity: folder and file name without flags. */
  id: string;
  entry: IndexEntry;
  /** The record it is in now, if any. */
  oldKey: string | null;
  /** The thread (record name without part) it is in now, if any. */
  oldThread: string | null;
  /** Where its block starts in `oldKey`'s content. */
  oldOffset: number;
  /** The change that brings it into this state, an index into the step's changes; null when unchanged. */
  change: number | null;
  /** Its block, when it was parsed in this step; otherwise it is in `oldKey`'s content. */
  block: string | null;
}

/** A thread record as it stands, read from memory. */
export interface ExistingRecord {
  key: string;
  title: string;
  fields: { [name: string]: Json };
}

/** A record the step writes: its title and fields, and the messages whose blocks make its content. */
export interface PlannedRecord {
  key: string;
  title: string;
  fields: { [name: string]: Json };
  messages: PlannedMessage[];
}

/** What one step changes, within its budget. */
export interface ThreadPlan {
  writes: PlannedRecord[];
  removes: string[];
  /** The changes these writes and removals carry out. */
  applied: Set<number>;
}

/** What a step's changes may take of one commit, as the host counts it. */
export interface StepBudget {
  /** Records written and removed. */
  records: number;
  /** Stored entries set or deleted: a record's metadata, and each 60 KiB of its content. */
  entries: number;
  /** Bytes of the keys and values set, and of the keys checked. */
  bytes: number;
  /** Bytes of the keys set or deleted. */
  keyBytes: number;
}

/** Options for {@link planThreads}. */
export interface PlanThreadsOptions {
  /** What the step's writes and removals may take together. */
  budget: StepBudget;
  /** Characters of content per record; a longer thread goes on in parts. */
  contentChars?: number;
  /** UTF-8 bytes of fields per record. */
  fieldBytes?: number;
}

const CONTENT_CHARS = 170_000; // 3 bytes a character at most: under a record's 512 KiB
/** The host stores content in chunks of 60 KiB of UTF-8. */
const CHUNK_BYTES = 60 * 1024;
/**
 * A record's metadata besides its key, title and fields (times, ids, counts and its writers:
 * one for a new record, up to eight for an old one), and a stored key's framing.
 */
const NEW_RECORD_OVERHEAD = 400;
const OLD_RECORD_OVERHEAD = 1200;
const KEY_OVERHEAD = 48;
const FIELD_BYTES = 28_000; // under a record's 32 KiB of fields, with room for the rest
const TITLE_CHARS = 300;

/**
 * Threads `messages` (every message the step leaves, changed or not), names each thread's
 * records, and compares them with `existing`: a record is written only when its title or
 * fields differ, and one nothing holds any more is removed. Changes that touch the same
 * records form one cluster, carried out together or not at all; clusters are taken in the
 * order of their first change while they fit `budget` (each record's share counted as the host
 * will count it, from above), so what is left for the next step is a consistent state.
 *
 * @param vanished For each change that removes a message: the record it was in.
 */
export function planThreads(
  messages: PlannedMessage[],
  existing: Map<string, ExistingRecord>,
  vanished: Map<number, string>,
  options: PlanThreadsOptions,
): ThreadPlan {
  // A thread whose messages are all unchanged and all still its own is as it was: it is not
  // built again, which keeps a step over a large Maildir to the threads that changed.
  const oldSize = new Map<string, number>();
  const oldKeys = new Map<string, string[]>();
  for (const record of existing.values()) {
    const thread = record.fields.thread;
    if (typeof thread !== "string") continue;
    const count = Array.isArray(record.fields.messages) ? record.fields.messages.length : 0;
    oldSize.set(thread, (oldSize.get(thread) ?? 0) + count);
    oldKeys.set(thread, [...(oldKeys.get(thread) ?? []), record.key]);
  }
  const kept = new Set<string>();
  const desired = desiredRecords(messages, options, (name, group) => {
    const same = group.length === oldSize.get(name) &&
      group.every((m) => m.change === null && m.oldThread === name);
    if (same) {
      for (const key of oldKeys.get(name)!) kept.add(key);
    }
    return same;
  });
  const touched = new Map<string, Cost>();
  for (const record of desired.values()) {
    const old = existing.get(record.key);
    const fields = JSON.stringify(record.fields);
    if (!old || old.title !== record.title || JSON.stringify(old.fields) !== fields) {
      touched.set(record.key, writeCost(record, fields, old));
    }
  }
  const removes = [...existing.keys()].filter((key) => !desired.has(key) && !kept.has(key));
  for (const key of removes) touched.set(key, removeCost(key, existing.get(key)!));

  // Clusters: records and changes linked by the messages that pass between them.
  const links = new UnionFind();
  const threadOf = new Map<string, string>();
  for (const record of desired.values()) {
    const thread = String(record.fields.thread);
    const first = threadOf.get(thread);
    if (first) links.join(`r:${first}`, `r:${record.key}`);
    else threadOf.set(thread, record.key);
    links.add(`r:${record.key}`);
    for (const message of record.messages) {
      if (message.oldKey !== null) links.join(`r:${record.key}`, `r:${message.oldKey}`);
      if (message.change !== null) links.join(`r:${record.key}`, `c:${message.change}`);
    }
  }
  for (const [change, key] of vanished) links.join(`c:${change}`, `r:${key}`);
  for (const key of removes) links.add(`r:${key}`);

  const clusters = new Map<string, { cost: Cost; first: number; changes: number[] }>();
  const clusterOf = (node: string) => {
    const root = links.find(node);
    let cluster = clusters.get(root);
    if (!cluster) clusters.set(root, cluster = { cost: noCost(), first: Infinity, changes: [] });
    return cluster;
  };
  for (const [key, cost] of touched) addTo(clusterOf(`r:${key}`).cost, cost);
  for (const node of links.nodes()) {
    if (!node.startsWith("c:")) continue;
    const change = Number(node.slice(2));
    const cluster = clusterOf(node);
    cluster.changes.push(change);
    cluster.first = Math.min(cluster.first, change);
  }
  const chosen = new Set<string>();
  const applied = new Set<number>();
  const spent = noCost();
  const ordered = [...clusters.entries()]
    .filter(([, c]) => c.cost.records > 0 || c.changes.length > 0)
    .sort((a, b) => a[1].first - b[1].first);
  for (const [root, cluster] of ordered) {
    const over = overBudget(spent, cluster.cost, options.budget);
    if (over !== null) {
      if (spent.records === 0 && cluster.cost.records > 0) {
        throw new Error(
          `One change to the mail touches ${cluster.cost.records} thread records at once, more than a step may write (${over}); nothing was written. This needs a smaller change, such as moving fewer messages of one thread at a time.`,
        );
      }
      continue;
    }
    addTo(spent, cluster.cost);
    chosen.add(root);
    for (const change of cluster.changes) applied.add(change);
  }
  const inChosen = (key: string) => chosen.has(links.find(`r:${key}`));
  return {
    writes: [...desired.values()].filter((r) => touched.has(r.key) && inChosen(r.key)),
    removes: removes.filter(inChosen),
    applied,
  };
}

/** One record's share of a step's commit, counted from above. */
type Cost = StepBudget;

function noCost(): Cost {
  return { records: 0, entries: 0, bytes: 0, keyBytes: 0 };
}

function addTo(total: Cost, cost: Cost): void {
  total.records += cost.records;
  total.entries += cost.entries;
  total.bytes += cost.bytes;
  total.keyBytes += cost.keyBytes;
}

/** Which part of `budget` adding `cost` to `spent` would pass, in words; null when none. */
function overBudget(spent: Cost, cost: Cost, budget: StepBudget): string | null {
  if (spent.records + cost.records > budget.records) return `${budget.records} records`;
  if (spent.entries + cost.entries > budget.entries) return `${budget.entries} stored entries`;
  if (spent.bytes + cost.bytes > budget.bytes) return `${budget.bytes} bytes`;
  if (spent.keyBytes + cost.keyBytes > budget.keyBytes) return `${budget.keyBytes} bytes of keys`;
  return null;
}

/** Chunks of content of `bytes` UTF-8 bytes. */
function chunksOf(bytes: number): number {
  return Math.ceil(bytes / CHUNK_BYTES);
}

/** UTF-8 bytes of an old record's content, from above: its messages' characters, 3 bytes each. */
function oldContentBytes(old: ExistingRecord): number {
  const list = Array.isArray(old.fields.messages) ? old.fields.messages : [];
  let chars = 0;
  for (const value of list) {
    const c = (value as { chars?: unknown } | null)?.chars;
    if (typeof c === "number") chars += c;
  }
  return chars * 3;
}

/**
 * What writing `record` takes: its metadata and content chunks set, and the old content's
 * chunks deleted (a rewrite names new content even when the text is the same).
 */
function writeCost(record: PlannedRecord, fields: string, old: ExistingRecord | undefined): Cost {
  let contentBytes = 0;
  for (const m of record.messages) {
    contentBytes += m.block === null
      ? m.entry.chars * 3
      : NON_ASCII.test(m.block)
      ? utf8Length(m.block)
      : m.block.length;
  }
  const entries = 1 + chunksOf(contentBytes) + (old ? chunksOf(oldContentBytes(old)) : 0);
  const key = utf8Length(record.key);
  const keyBytes = entries * (key + KEY_OVERHEAD);
  return {
    records: 1,
    entries,
    keyBytes,
    // The key twice more: the check's, and in the metadata.
    bytes: keyBytes + 2 * key + contentBytes + utf8Length(fields) +
      utf8Length(JSON.stringify(record.title)) + (old ? OLD_RECORD_OVERHEAD : NEW_RECORD_OVERHEAD),
  };
}

/** What removing `old` takes: its metadata and its content's chunks deleted. */
function removeCost(key: string, old: ExistingRecord): Cost {
  const entries = 1 + chunksOf(oldContentBytes(old));
  const keyBytes = entries * (utf8Length(key) + KEY_OVERHEAD);
  return { records: 1, entries, keyBytes, bytes: keyBytes + utf8Length(key) + KEY_OVERHEAD };
}

const NON_ASCII = /[\u0080-\uffff]/;

const sortKeys = new WeakMap<PlannedMessage, string>();

function sortKey(message: PlannedMessage): string {
  let key = sortKeys.get(message);
  if (key === undefined) {
    key = `${message.entry.date ?? "~"}\u0000${message.id}`;
    sortKeys.set(message, key);
  }
  return key;
}

function nodeOf(message: PlannedMessage): string {
  return message.entry.messageId ?? `file:${message.id}`;
}

/**
 * Every changed thread's records as they should be, by key; `unchanged` says, for a thread's
 * name and messages, that it is as stored and need not be built.
 */
function desiredRecords(
  messages: PlannedMessage[],
  options: PlanThreadsOptions,
  unchanged: (name: string, group: PlannedMessage[]) => boolean,
): Map<string, PlannedRecord> {
  const links: ThreadLinks[] = messages.map((m) => ({
    node: nodeOf(m),
    parent: m.entry.parent,
    root: m.entry.root,
  }));
  const groups = threadMessages(links).map((indexes) =>
    indexes.map((i) => messages[i]).sort((a, b) => sortKey(a) < sortKey(b) ? -1 : 1)
  );

  // Each conversation keeps the thread most of its messages were in; a conversation that
  // split leaves the old thread to the part holding most of it, and the rest start anew.
  const claims = new Map<string, { group: number; count: number; first: string }[]>();
  const names: (string | null)[] = groups.map(() => null);
  groups.forEach((group, g) => {
    const counts = new Map<string, number>();
    for (const m of group) {
      if (m.oldThread !== null) counts.set(m.oldThread, (counts.get(m.oldThread) ?? 0) + 1);
    }
    let best: string | null = null;
    for (const [thread, count] of counts) {
      if (
        best === null || count > counts.get(best)! || (count === counts.get(best)! && thread < best)
      ) {
        best = thread;
      }
    }
    if (best === null) return;
    const list = claims.get(best) ?? [];
    list.push({ group: g, count: counts.get(best)!, first: sortKey(group[0]) });
    claims.set(best, list);
  });
  const used = new Set<string>();
  for (const [thread, list] of claims) {
    list.sort((a, b) => b.count - a.count || (a.first < b.first ? -1 : 1));
    names[list[0].group] = thread;
    used.add(thread);
  }
  // A thread no conversation claims is going away, so a new conversation may take its name: the
  // same root then keeps the same key even when all its messages were replaced at once.
  groups.forEach((group, g) => {
    if (names[g] !== null) return;
    const first = group[0];
    const root = first.entry.root ?? first.entry.parent ?? nodeOf(first);
    let name = threadKey(root);
    for (let salt = 1; used.has(name); salt++) name = threadKey(`${root}\n${first.id}\n${salt}`);
    used.add(name);
    names[g] = name;
  });

  const out = new Map<string, PlannedRecord>();
  groups.forEach((group, g) => {
    const thread = names[g]!;
    if (unchanged(thread, group)) return;
    const parts = partsOf(group, options);
    const subject = group.find((m) => m.entry.subject.trim() !== "")?.entry.subject.trim() ??
      "(no subject)";
    const excluded = group.every((m) => junkFolder(m.entry.folder));
    parts.forEach((part, p) => {
      const key = `${THREAD_KIND}/${thread}${p === 0 ? "" : `-${p + 1}`}`;
      const title = cut(subject, TITLE_CHARS) +
        (parts.length > 1 ? ` (part ${p + 1} of ${parts.length})` : "");
      out.set(key, {
        key,
        title,
        fields: {
          thread,
          part: p + 1,
          parts: parts.length,
          excluded,
          messages: part.map((m) => ({ ...m.entry })),
        } as { [name: string]: Json },
        messages: part,
      });
    });
  });
  return out;
}

/** A thread's messages in parts that each fit a record's content and fields. */
function partsOf(group: PlannedMessage[], options: PlanThreadsOptions): PlannedMessage[][] {
  const contentChars = options.contentChars ?? CONTENT_CHARS;
  const fieldBytes = options.fieldBytes ?? FIELD_BYTES;
  const parts: PlannedMessage[][] = [[]];
  let chars = 0;
  let bytes = 0;
  for (const message of group) {
    const size = utf8Length(JSON.stringify(message.entry)) + 1;
    const part = parts[parts.length - 1];
    if (
      part.length > 0 && (chars + message.entry.chars > contentChars || bytes + size > fieldBytes)
    ) {
      parts.push([message]);
      chars = message.entry.chars;
      bytes = size;
    } else {
      part.push(message);
      chars += message.entry.chars;
      bytes += size;
    }
  }
  return parts;
}

function utf8Length(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    n += c < 0x80 ? 1 : c < 0x800 ? 2 : c >= 0xd800 && c < 0xdc00 ? (i++, 4) : 3;
  }
  return n;
}

function cut(text: string, max: number): string {
  const line = text.replace(/\s+/g, " ");
  return line.length <= max ? line : `${line.slice(0, max - 1)}…`;
}

/** Union-find over names, each joined set one cluster. */
class UnionFind {
  #parent = new Map<string, string>();

  add(node: string): void {
    if (!this.#parent.has(node)) this.#parent.set(node, node);
  }

  find(node: string): string {
    this.add(node);
    let at = node;
    while (this.#parent.get(at) !== at) {
      const next = this.#parent.get(at)!;
      this.#parent.set(at, this.#parent.get(next)!);
      at = next;
    }
    return at;
  }

  join(a: string, b: string): void {
    const ra = this.find(a);
    const rb = this.find(b);
    if (ra !== rb) this.#parent.set(ra, rb);
  }

  nodes(): string[] {
    return [...this.#parent.keys()];
  }
}
