/**
 * A transcript as Chat keeps it and draws it. Entries arrive one per streamed
 * chunk on the event stream; {@linkcode joinEntry} joins them by the rule the
 * server stores them by, so a live view and a reloaded one hold the same
 * entries. {@linkcode itemsOf} then folds the entries into what is drawn: a
 * tool call with its updates merged in, a plan replaced by the next one, a
 * permission request with its answer.
 *
 * @module
 */
import type {
  FailureEntry,
  MessageEntry,
  PermissionAnswerEntry,
  PermissionEntry,
  PlanEntry,
  StoppedEntry,
  ThoughtEntry,
  ToolCallEntry,
  TranscriptEntry,
  TurnEndEntry,
  UserEntry,
} from "../../runtime/web/api/chat_types.ts";

/** The longest joined text: the bound the server joins and stores entries within. */
const MAX_JOINED_CHARS = 16_000;

type ChunkEntry = UserEntry | MessageEntry | ThoughtEntry;

function isChunk(entry: TranscriptEntry): entry is ChunkEntry {
  return entry.kind === "user" || entry.kind === "message" || entry.kind === "thought";
}

function messageIdOf(entry: ChunkEntry): string | undefined {
  return entry.kind === "user" ? undefined : entry.messageId;
}

/**
 * Adds an entry to a transcript, joining it to the last one when both are
 * chunks of one stream: the same kind, the same `messageId` (or neither has
 * one), both replayed or neither, and the joined text within the bound. The
 * joined entry keeps the first chunk's time. Answers a new array.
 *
 * @param entries The transcript so far.
 * @param entry The next entry.
 */
export function joinEntry(entries: TranscriptEntry[], entry: TranscriptEntry): TranscriptEntry[] {
  const last = entries.at(-1);
  if (
    last !== undefined && isChunk(last) && isChunk(entry) && last.kind === entry.kind &&
    messageIdOf(last) === messageIdOf(entry) && Boolean(last.replay) === Boolean(entry.replay) &&
    last.text.length + entry.text.length <= MAX_JOINED_CHARS
  ) {
    return [...entries.slice(0, -1), { ...last, text: last.text + entry.text }];
  }
  return [...entries, entry];
}

/** One thing drawn in the transcript. */
export type TranscriptItem =
  | { kind: "user"; key: string; entry: UserEntry }
  | { kind: "message"; key: string; entry: MessageEntry }
  | { kind: "thought"; key: string; entry: ThoughtEntry }
  | { kind: "tool_call"; key: string; call: ToolCallEntry }
  | { kind: "plan"; key: string; plan: PlanEntry }
  | {
    kind: "permission";
    key: string;
    request: PermissionEntry;
    answer: PermissionAnswerEntry | null;
  }
  | { kind: "turn_end"; key: string; entry: TurnEndEntry }
  | { kind: "failure"; key: string; entry: FailureEntry }
  | { kind: "stopped"; key: string; entry: StoppedEntry };

/**
 * Folds a transcript into what is drawn, in order. A tool call's updates
 * change it where it first appeared; within a turn each plan replaces the one
 * before it in its place; a permission request carries its answer. An update
 * or an answer whose call or request is not in view (left out past the stored
 * bound) is dropped.
 *
 * @param entries The transcript, oldest first, chunks joined.
 */
export function itemsOf(entries: readonly TranscriptEntry[]): TranscriptItem[] {
  const items: TranscriptItem[] = [];
  const calls = new Map<string, number>();
  const requests = new Map<string, number>();
  let plan: number | null = null;
  entries.forEach((entry, index) => {
    const key = String(index);
    switch (entry.kind) {
      case "user":
        plan = null;
        items.push({ kind: "user", key, entry });
        break;
      case "message":
        items.push({ kind: "message", key, entry });
        break;
      case "thought":
        items.push({ kind: "thought", key, entry });
        break;
      case "tool_call": {
        const known = calls.get(entry.toolCallId);
        if (known !== undefined) {
          // A call reported again replaces what was known of it, in its place.
          const held = items[known] as Extract<TranscriptItem, { kind: "tool_call" }>;
          items[known] = { ...held, call: { ...held.call, ...entry } };
        } else {
          calls.set(entry.toolCallId, items.length);
          items.push({ kind: "tool_call", key, call: entry });
        }
        break;
      }
      case "tool_call_update": {
        const known = calls.get(entry.toolCallId);
        if (known === undefined) break;
        const held = items[known] as Extract<TranscriptItem, { kind: "tool_call" }>;
        const call: ToolCallEntry = { ...held.call };
        if (entry.title !== undefined) call.title = entry.title;
        if (entry.toolKind !== undefined) call.toolKind = entry.toolKind;
        if (entry.status !== undefined) call.status = entry.status;
        if (entry.text !== undefined) call.text = entry.text;
        if (entry.paths !== undefined) call.paths = entry.paths;
        items[known] = { ...held, call };
        break;
      }
      case "plan":
        if (plan !== null) {
          items[plan] = {
            ...(items[plan] as Extract<TranscriptItem, { kind: "plan" }>),
            plan: entry,
          };
        } else {
          plan = items.length;
          items.push({ kind: "plan", key, plan: entry });
        }
        break;
      case "permission":
        requests.set(entry.requestId, items.length);
        items.push({ kind: "permission", key, request: entry, answer: null });
        break;
      case "permission_answer": {
        const known = requests.get(entry.requestId);
        if (known === undefined) break;
        const held = items[known] as Extract<TranscriptItem, { kind: "permission" }>;
        items[known] = { ...held, answer: entry };
        break;
      }
      case "turn_end":
        plan = null;
        items.push({ kind: "turn_end", key, entry });
        break;
      case "failure":
        plan = null;
        items.push({ kind: "failure", key, entry });
        break;
      case "stopped":
        plan = null;
        items.push({ kind: "stopped", key, entry });
        break;
    }
  });
  return items;
}
