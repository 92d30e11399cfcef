/**
 * What went wrong in the background of a project, or waits for the person,
 * wherever the window is: a clock run (or an agent's call) that failed, an
 * extension whose lamp says it needs the person, a conversation waiting for
 * an answer or a sign-in, or one whose agent failed. Built from what the
 * window already has — the lamps of the installed packages, the event
 * stream's receipts and sessions — plus Chat's list and the project's failed
 * background calls the person has not seen (those of while no window was
 * open), each read once and again after the stream was lost.
 *
 * @module
 */
import { computed, type ReadonlySignal, signal } from "@preact/signals";
import type { ChatListResponse, ChatRow } from "../../runtime/web/api/chat_types.ts";
import type {
  ExtensionSummary,
  ProjectReceiptsResponse,
  Receipt,
} from "../../runtime/web/api/types.ts";
import type { StreamEvent } from "../../runtime/web/api/events_types.ts";
import { getJson } from "../api/client.ts";
import type { ProjectState } from "../state/project_state.ts";
import { type Area, projectPath } from "../state/route.ts";
import { dismissedNotices } from "./dismissed_notices.ts";
import { seenReceipt, seeReceipt } from "./seen_receipts.ts";

/** A notice of something in the background that needs the person. */
export interface WindowNotice {
  /** Names the failure it tells: a newer failure is a new id, shown again once dismissed. */
  id: string;
  /** The navigator's entry it counts on. */
  area: Extract<Area, "extensions" | "chat">;
  /** The package or the conversation it is about: its page's selection. */
  about: string;
  /** What happened, in a few words. */
  title: string;
  /** More: what failed and what to do. */
  text: string;
  /** Where the person acts on it. */
  href: string;
}

/** A project window's notices, kept live while the window is open. */
export interface WindowNotices {
  /** Every notice not dismissed, newest kind first: conversations, then extensions. */
  readonly notices: ReadonlySignal<WindowNotice[]>;
  /** Stops listening. */
  dispose(): void;
}

/** A lamp's reasons that are a background failure (the others are set-up states the list shows). */
const FAILURE_REASONS: ReadonlySet<string> = new Set([
  "handler-failing",
  "lifecycle-failed",
  "needs-review",
  "cannot-load",
]);

/** Occasions whose failed calls nobody watched: the clock's, an agent's, a lifecycle moment's. */
const UNWATCHED_OCCASIONS: ReadonlySet<string> = new Set(["clock", "agent", "lifecycle"]);

/** The most failures of while no window was open told one by one; the rest are counted. */
const MOST_MISSED = 3;

/** The most failed calls kept as notices; older ones are in their receipts. */
const MOST_RECEIPTS = 20;

/** The most characters of an error a notice quotes: the receipt has all of it. */
const MOST_ERROR_CHARS = 200;

/** What a conversation's notice is made from: Chat's row, or the session a fact told. */
interface SessionFacts {
  key: string;
  title: string;
  agent: string;
  state: ChatRow["state"];
  updatedAt: string;
  waits: "permission" | "sign-in" | null;
  /** The person cancelled it, or archived it: nothing there needs them. */
  settled: boolean;
}

/**
 * Opens a project window's notices.
 *
 * @param state The project's live state, whose lamps and facts they are made from.
 */
export function openWindowNotices(state: ProjectState): WindowNotices {
  const sessions = signal<ReadonlyMap<string, SessionFacts>>(new Map());
  const receipts = signal<Receipt[]>([]);
  /** Failures not seen past those told one by one: how many, and the newest receipt's id. */
  const missed = signal<{ count: number; newest: string } | null>(null);
  const addReceipts = (found: readonly Receipt[]) => {
    const byId = new Map([...receipts.value, ...found].map((receipt) => [receipt.id, receipt]));
    // Receipt ids sort by when the call started: the newest first.
    const all = [...byId.values()].sort((a, b) => a.id < b.id ? 1 : a.id > b.id ? -1 : 0);
    receipts.value = all.slice(0, MOST_RECEIPTS);
    // Told now: a reload asks only for failures newer than these.
    if (all[0]) seeReceipt(state.project, all[0].id);
  };
  let missing = 0;
  const readMissed = async () => {
    const mine = ++missing;
    try {
      const found = await getJson<ProjectReceiptsResponse>("/api/receipts", {
        project: state.project,
        outcome: "failed",
        occasion: [...UNWATCHED_OCCASIONS].join(","),
        limit: MOST_MISSED,
        after: seenReceipt(state.project),
      });
      if (mine !== missing || !found.receipts[0]) return;
      if (found.more > 0) missed.value = { count: found.more, newest: found.receipts[0].id };
      addReceipts(found.receipts);
    } catch {
      // The receipts could not be read: the next reconnect asks again.
    }
  };
  let reading = 0;
  const readChat = async () => {
    const mine = ++reading;
    try {
      const list = await getJson<ChatListResponse>("/api/chat", { project: state.project });
      if (mine !== reading) return;
      const rows = [...list.conversations, ...list.groups.flatMap((group) => group.rows)];
      sessions.value = new Map(
        rows.map((
          row,
        ) => [row.key, { ...row, waits: row.waitsFor, settled: row.cancelled === true }]),
      );
    } catch {
      // Chat could not be read: its notices wait for the next fact or reconnect.
    }
  };
  const heard = (event: StreamEvent) => {
    if (event.type === "resync") {
      void readChat();
      void readMissed();
    } else if (event.type === "session") {
      const s = event.session;
      const next = new Map(sessions.value);
      if (event.deleted) {
        // A deleted conversation needs the person no more.
        next.delete(s.key);
        sessions.value = next;
        return;
      }
      next.set(s.key, {
        key: s.key,
        title: s.title,
        agent: s.agent,
        state: s.state,
        updatedAt: s.updatedAt,
        waits: s.waitingFor?.kind ?? null,
        settled: (s.state === "failed" && s.error?.name === "Cancelled") ||
          (s.archivedAt ?? null) !== null,
      });
      sessions.value = next;
    } else if (
      event.type === "receipt" && event.receipt.outcome === "failed" &&
      UNWATCHED_OCCASIONS.has(event.receipt.occasion.kind)
    ) {
      addReceipts([event.receipt]);
    }
  };
  const stop = state.listen(heard);
  void readChat();
  void readMissed();
  const notices = computed(() => {
    const dismissed = dismissedNotices.value;
    const extensions = state.extensions.value ?? [];
    const all = [
      ...[...sessions.value.values()].flatMap((s) => sessionNotice(state.project, s)),
      ...lampNotices(state.project, extensions),
    ];
    // A failure the lamp already tells (its receipt) is told once.
    const told = new Set(all.map((notice) => notice.id));
    for (const receipt of receipts.value) {
      const notice = receiptNotice(state.project, receipt, extensions);
      if (!told.has(notice.id)) all.push(notice);
    }
    if (missed.value) all.push(missedNotice(state.project, missed.value));
    return all.filter((notice) => !dismissed.has(notice.id));
  });
  return {
    notices,
    dispose() {
      stop();
      reading++;
      missing++;
    },
  };
}

function sessionNotice(project: string, s: SessionFacts): WindowNotice[] {
  if (s.settled || (s.state !== "waiting" && s.state !== "failed")) return [];
  const text = s.state === "failed"
    ? `The agent ${s.agent} failed. Open the conversation to read why, and continue it.`
    : s.waits === "sign-in"
    ? `It waits for you to sign in to ${s.agent}.`
    : s.waits === "permission"
    ? `The agent ${s.agent} asks your permission.`
    : `The agent ${s.agent} waits for you.`;
  return [{
    id: `${project}\u0000session\u0000${s.key}\u0000${s.state}\u0000${s.updatedAt}`,
    area: "chat",
    about: s.key,
    title: s.state === "failed" ? `Failed: ${s.title}` : `Waits for you: ${s.title}`,
    text,
    href: projectPath(project, "chat", s.key),
  }];
}

function lampNotices(project: string, extensions: ExtensionSummary[]): WindowNotice[] {
  return extensions.flatMap((extension) =>
    extension.lamp.notices
      .filter((notice) => FAILURE_REASONS.has(notice.reason))
      .map((notice): WindowNotice => ({
        id: notice.receiptId
          ? receiptId(project, notice.receiptId)
          : `${project}\u0000lamp\u0000${extension.id}\u0000${notice.reason}\u0000${notice.text}`,
        area: "extensions",
        about: extension.id,
        title: `${extension.name} needs you`,
        text: notice.text,
        href: projectPath(project, "extensions", extension.id),
      }))
  );
}

function receiptNotice(
  project: string,
  receipt: Receipt,
  extensions: ExtensionSummary[],
): WindowNotice {
  const name = extensions.find((e) => e.id === receipt.packageId)?.name ?? receipt.packageId;
  const when = occasionWords(receipt);
  const error = receipt.error?.message ?? "";
  const quoted = error.length > MOST_ERROR_CHARS ? `${error.slice(0, MOST_ERROR_CHARS)}…` : error;
  return {
    id: receiptId(project, receipt.id),
    area: "extensions",
    about: receipt.packageId,
    title: `${name}: ${receipt.handler} failed ${when}`,
    text: quoted
      ? `${quoted}${/[.!?…]$/.test(quoted) ? "" : "."} Its receipt says more.`
      : "Its receipt says more.",
    href: projectPath(project, "extensions", receipt.packageId),
  };
}

function occasionWords(receipt: Receipt): string {
  const { kind, moment } = receipt.occasion;
  if (kind === "clock") return "on the clock";
  if (kind === "agent") return "called by an agent";
  if (moment === "opened") return "when the project was opened";
  if (moment === "installed") return "after it was installed";
  if (moment === "removed") return "before it was removed";
  return "in the background";
}

function missedNotice(project: string, missed: { count: number; newest: string }): WindowNotice {
  return {
    id: `${project}\u0000missed\u0000${missed.newest}`,
    area: "extensions",
    about: "",
    title: missed.count === 1 ? "1 more failure" : `${missed.count} more failures`,
    text:
      "Calls on the clock, by agents or at lifecycle moments failed while no window was open. " +
      "Each extension's page lists its receipts.",
    href: projectPath(project, "extensions"),
  };
}

function receiptId(project: string, id: string): string {
  return `${project}\u0000receipt\u0000${id}`;
}
