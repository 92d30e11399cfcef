/**
 * The lamp: the one state an installed package shows per project, and the
 * one rule that decides it. Every place that shows a lamp (the Extensions
 * list, an extension's page, the answer to a switch) reads it here.
 *
 * The states, in the order they win when several hold:
 *
 * 1. `dark`: listed in the project but not set up here — not on this machine,
 *    or not approved for this project. Nothing of it can run, so nothing else
 *    it could say is true yet.
 * 2. `breathing`: one of its handlers is running now. It is what is happening
 *    this moment, and it passes: a package a person is retrying shows that the
 *    retry runs, then returns to what it was.
 * 3. `red`: a person must act — an update waits for approval, a lifecycle
 *    handler failed, the artefact cannot be read, its last three scheduled
 *    attempts failed while its clock is on, one of its handlers failed its
 *    last `FAILING_AFTER` attempts whatever its other handlers do
 *    (`failing_handlers.ts`, read from each handler's own run of failures,
 *    however many receipts its siblings write; one notice per handler, naming
 *    it and its last error; failures from before the project approved what it
 *    has now do not count), or work it ordered waits for a person to sign in to the agent.
 *    Nothing retries a failed handler, so a handler failing again and again
 *    stays broken until a person fixes it: that is this state's meaning, not
 *    a quieter mark. It outlasts the moment, so it wins over the quiet
 *    states, and it clears at the handler's next success.
 * 4. `paused`: its clock is switched off in this project. Switching off is
 *    itself an answer to failing attempts on the clock, so those no longer
 *    make it red (a handler whose newest failure was on another occasion,
 *    an agent's call say, still does).
 * 5. `steady`: ready.
 *
 * Whatever the state, `notices` lists everything a person must act on, so a
 * breathing lamp does not hide why it will be red again. A notice is worded
 * for the window, where the lamp is shown: it names what to do there (the
 * Approve button on the package's page, Install…), never a command line;
 * the CLI says how a package stands in its own words (`sync list`).
 *
 * @module
 */
import { listSessions } from "../agents/mod.ts";
import { cutText } from "../internal/cut_text.ts";
import { isSwitchedOff, needsReview } from "../clock/mod.ts";
import { newestReceipts, readHandlerRuns, runningHandlers } from "../host/mod.ts";
import { readApproval, readServingState } from "../packages/mod.ts";
import type { Receipt } from "../types.ts";
import { FAILING_AFTER, type FailingHandler, failingHandlers } from "./failing_handlers.ts";

/** The lamp's states; see the module's documentation for what each means and which wins. */
export type LampState = "dark" | "steady" | "breathing" | "red" | "paused";

/** Why a lamp is dark or red. */
export type LampReason =
  | "not-on-machine"
  | "not-approved"
  | "awaits-approval"
  | "lifecycle-failed"
  | "cannot-load"
  | "needs-review"
  | "handler-failing"
  | "agent-sign-in";

/** Something a person must act on: which, and what to do, in one sentence or two. */
export interface LampNotice {
  /** Which it is. */
  reason: LampReason;
  /** What happened and what to do; may hold a package's own text (plain text, never markup). */
  text: string;
  /** The handler it is about, for `handler-failing`. */
  handler?: string;
  /**
   * The receipt of the failure it tells, for `handler-failing` and
   * `lifecycle-failed`: a newer failure is a new notice.
   */
  receiptId?: string;
}

/** The lamp of one package in one project. */
export interface Lamp {
  /** The state. */
  state: LampState;
  /** The state in words, for screen readers and for a lamp that does not move. */
  label: string;
  /** Everything a person must act on, most pressing first; empty when nothing. */
  notices: LampNotice[];
  /** The handlers running now, in name order. */
  running: string[];
}

/** What the lamp is decided from; {@linkcode readLamp} reads it, {@linkcode lampOf} decides. */
export interface LampFacts {
  /** The package id. */
  id: string;
  /** The project's resolved path. */
  project: string;
  /** How the package stands here (see `readServingState`). */
  serving:
    | { state: "not-on-machine" }
    | { state: "cannot-load"; message: string; source?: "folder" | "archive" }
    | { state: "not-approved" }
    | { state: "approved" }
    | { state: "awaits-approval"; version: string; widened: string[]; serves: string | null };
  /** Its clock is switched off in the project. */
  switchedOff: boolean;
  /** Its last three scheduled attempts in the project failed. */
  needsReview: boolean;
  /**
   * Its handlers whose last `FAILING_AFTER` counted attempts failed, each
   * with its newest failure's receipt. None when absent.
   */
  failingHandlers?: FailingHandler[];
  /** Its handlers running now. */
  running: string[];
  /** Its newest lifecycle receipt since the project approved it, when that one failed. */
  failedLifecycle: Receipt | null;
  /**
   * Work it ordered that waits for a person to sign in to the agent: each
   * session's title and what to run. None when absent.
   */
  signInWaits?: { title: string; text: string }[];
}

const LABELS: Readonly<Record<LampState, string>> = {
  dark: "not set up here",
  steady: "ready",
  breathing: "running now",
  red: "needs you",
  paused: "paused in this project",
};

/**
 * Decides the lamp from what holds; the precedence is the module's.
 *
 * @param facts What holds for the package in the project.
 * @returns The lamp, with every notice that holds.
 */
export function lampOf(facts: LampFacts): Lamp {
  const notices = noticesOf(facts);
  const running = [...facts.running].sort();
  const dark = notices.some((n) => n.reason === "not-on-machine" || n.reason === "not-approved");
  const state: LampState = dark
    ? "dark"
    : running.length > 0
    ? "breathing"
    : notices.length > 0
    ? "red"
    : facts.switchedOff
    ? "paused"
    : "steady";
  return { state, label: LABELS[state], notices, running };
}

function noticesOf(facts: LampFacts): LampNotice[] {
  const { id, serving } = facts;
  const install = "Install it here with Install…, from its folder or archive";
  const notices: LampNotice[] = [];
  switch (serving.state) {
    case "not-on-machine":
      notices.push({
        reason: "not-on-machine",
        text: `${id} is listed in this project but is not on this machine. ${install}.`,
      });
      return notices;
    case "not-approved":
      notices.push({
        reason: "not-approved",
        text: `${id} is on this machine but this project has not approved it. ${install}, ` +
          "and approve what its install card asks for.",
      });
      return notices;
    case "cannot-load":
      notices.push({
        reason: "cannot-load",
        text: `${id} cannot be read: ${serving.message}. ` +
          (serving.source === "folder"
            ? "Fix its folder: Sync reads it again as it changes. Or use Install… to install it again."
            : "Use Install… to install it again."),
      });
      break;
    case "awaits-approval":
      notices.push({
        reason: "awaits-approval",
        text: `Update ${serving.version} waits for your approval: it asks for ` +
          `${serving.widened.join(", ")}, which this project has not approved. ` +
          (serving.serves === null
            ? "Nothing serves until you approve it. "
            : `${serving.serves} keeps serving until you approve it. `) +
          "Approve it on its page.",
      });
      break;
  }
  const failed = facts.failedLifecycle;
  if (failed) {
    const moment = failed.occasion.moment ?? "lifecycle";
    const error = failed.error ? `: ${cutText(failed.error.message, MAX_NOTICE_ERROR_CHARS)}` : "";
    const then = moment === "opened"
      ? "open the project again"
      : moment === "removed"
      ? "remove it again (or remove it anyway)"
      : "install it again";
    notices.push({
      reason: "lifecycle-failed",
      receiptId: failed.id,
      text: `Its ${moment} handler ${failed.handler} failed${error}. ` +
        `Read the receipt, fix what it says, then ${then}.`,
    });
  }
  for (const wait of facts.signInWaits ?? []) {
    notices.push({
      reason: "agent-sign-in",
      text: `Work it ordered ("${wait.title}") waits for you to sign in to the agent. ${wait.text}`,
    });
  }
  const failing = (facts.failingHandlers ?? []).filter(({ last }) =>
    !(facts.switchedOff && last.occasion.kind === "clock")
  );
  for (const { handler, last } of failing) {
    // The words alone: an error's class name means nothing to a person, and
    // when it happened is the receipts section's to say, in the reader's time.
    const error = last.error ? `: ${cutText(last.error.message, MAX_NOTICE_ERROR_CHARS)}` : "";
    notices.push({
      reason: "handler-failing",
      handler,
      receiptId: last.id,
      text: `Its handler ${handler} failed its last ${FAILING_AFTER} attempts; the last, ` +
        `${OCCASION_WORDS.get(last.occasion.kind) ?? "on another occasion"}${error}. ` +
        "Read its receipts and fix what they say" +
        (last.occasion.kind === "clock" ? ", or switch its clock off for this project." : "."),
    });
  }
  // The row of failing handlers says it more precisely, by name.
  if (facts.needsReview && !facts.switchedOff && failing.length === 0) {
    notices.push({
      reason: "needs-review",
      text: "Its last three scheduled attempts failed. Read its receipts, fix what they say, " +
        "or switch its clock off for this project.",
    });
  }
  return notices;
}

/** The most characters of a failing handler's error its notice quotes: the receipt has all of it. */
const MAX_NOTICE_ERROR_CHARS = 300;

/** The occasion of a handler's newest failure, as its notice says it. */
const OCCASION_WORDS: ReadonlyMap<Receipt["occasion"]["kind"], string> = new Map([
  ["clock", "on the clock"],
  ["extension", "called by a person or a screen"],
  ["agent", "called by an agent"],
  ["lifecycle", "at a lifecycle moment"],
  ["task", "in its device's task"],
]);

/** Options for {@linkcode readLamp}. */
export interface ReadLampOptions {
  /** The host's clock, in ms: a running claim counts until its term runs out. */
  now: () => number;
}

/**
 * Reads what holds for a package in a project and decides its lamp.
 *
 * @param kv The installation's KV.
 * @param project The project's resolved path.
 * @param id A package id the project lists.
 * @param options The host's clock.
 */
export async function readLamp(
  kv: Deno.Kv,
  project: string,
  id: string,
  options: ReadLampOptions,
): Promise<Lamp> {
  return lampOf(await readLampFacts(kv, project, id, options));
}

/**
 * Reads what the lamp of a package in a project is decided from.
 *
 * @param kv The installation's KV.
 * @param project The project's resolved path.
 * @param id A package id the project lists.
 * @param options The host's clock.
 */
async function readLampFacts(
  kv: Deno.Kv,
  project: string,
  id: string,
  options: ReadLampOptions,
): Promise<LampFacts> {
  const standing = await readServingState(kv, project, id);
  const serving: LampFacts["serving"] = standing.state === "awaits-approval"
    ? {
      state: "awaits-approval",
      version: standing.current.manifest.version,
      widened: standing.widened,
      serves: standing.serves,
    }
    : standing.state === "cannot-load"
    ? { state: "cannot-load", message: standing.message, source: standing.source }
    : { state: standing.state };
  const approval = await readApproval(kv, project, id);
  // A failure from before the project approved what it has now (an earlier
  // install, since removed) is not this installation's to fix.
  const since = approval?.approvedAt ?? "";
  const handlers = "current" in standing ? Object.keys(standing.current.manifest.handlers) : null;
  // Its last lifecycle call since then: a scan of its newest receipts,
  // stopped at the first lifecycle receipt or the first from before it.
  let lifecycle: Receipt | null = null;
  for await (const receipt of newestReceipts(kv, project, id)) {
    if (receipt.startedAt < since) break;
    if (receipt.occasion.kind === "lifecycle") {
      lifecycle = receipt;
      break;
    }
  }
  return {
    id,
    project,
    serving,
    switchedOff: await isSwitchedOff(kv, project, id),
    needsReview: await needsReview(kv, project, id),
    running: await runningHandlers(kv, project, id, { now: options.now() }),
    failedLifecycle: lifecycle?.outcome === "failed" ? lifecycle : null,
    failingHandlers: failingHandlers(await readHandlerRuns(kv, project, id), {
      declared: handlers,
      since,
    }),
    signInWaits: (await listSessions(kv, project))
      .filter((s) => s.extensionId === id && s.waitingFor?.kind === "sign-in")
      .map((s) => ({
        title: s.title,
        text: s.waitingFor?.kind === "sign-in" ? s.waitingFor.text : "",
      })),
  };
}
