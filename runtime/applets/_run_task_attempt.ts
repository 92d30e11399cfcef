/**
 * One attempt of a task: its steps, one handler call each, made through the
 * host with the occasion `task` and the account grant, following `continue`
 * up to `run.maxSteps` steps (`APPLET_LIMITS.maxStepsPerAttempt`). Each step waits for the
 * runner's admission (one background step at a time in the process) and
 * yields first, so foreground calls go before it. Private to the applets'
 * folder.
 *
 * @module
 */
import type { Occasion } from "../extension_api/service.ts";
import type { AccountGrant, HandlerCaller } from "../host/mod.ts";
import { newId } from "../internal/id.ts";
import { APPLET_LIMITS } from "../limits.ts";
import type { Source } from "../types.ts";
import { taskAttemptKey } from "./keys.ts";
import { type Coverage, coverageOf } from "./coverage.ts";
import { type AttemptTrigger, type TaskAttempt, writeAttempt } from "./task_record.ts";
import { classifyFailure, type Failure } from "./_failure.ts";
import { readAccountEpoch } from "../memory/mod.ts";

/** What one attempt runs with. */
export interface AttemptRun {
  /** The installation's KV. */
  kv: Deno.Kv;
  /** The project's memory KV, where the account epoch is. */
  memoryKv: Deno.Kv;
  /** What calls the handler: the Host. */
  caller: HandlerCaller;
  /** The runner's time, in ms. */
  now: () => number;
  /** The project's resolved path. */
  project: string;
  /** The package id. */
  pkg: string;
  /** The task's name. */
  task: "sync" | "analyze";
  /** The handler its steps call. */
  handler: string;
  /** Why it runs. */
  trigger: AttemptTrigger;
  /** Which try of its run. */
  try: number;
  /** The account it reads, and the epoch it began under. */
  grant: AccountGrant;
  /** Aborted when the account changed (reason `"fenced"`) or the device paused or the runner stops. */
  signal: AbortSignal;
  /** Runs one step once admitted. */
  admit: <T>(step: () => Promise<T>) => Promise<T>;
  /** The steps the attempt may make. */
  maxSteps: number;
}

/** How an attempt ended. */
export interface AttemptEnd {
  /** The attempt as written. */
  attempt: TaskAttempt;
  /** Why it did not end `ok`; null when it did. */
  failure: Failure | null;
  /** What its last step said it read. */
  coverage: Coverage | null;
}

/**
 * Runs one attempt to its end, writing it when it begins, after each step
 * that committed (its receipts so far) and when it ends (these only while
 * the attempt is still there: a reset dropped it).
 *
 * @param run What it runs with.
 */
export async function runTaskAttempt(run: AttemptRun): Promise<AttemptEnd> {
  const { kv, project, pkg } = run;
  const attempt: TaskAttempt = {
    id: newId(run.now()),
    task: run.task,
    accountId: run.grant.id,
    startedAt: run.now(),
    trigger: run.trigger,
    try: run.try,
    receipts: [],
  };
  await writeAttempt(kv, project, pkg, attempt);
  let coverage: Coverage | null = null;
  let failure: Failure | null = null;
  let payload: unknown = null;
  for (let step = 1;; step++) {
    if (step > run.maxSteps) {
      failure = {
        outcome: "failed",
        notice: "review-run",
        name: "StepLimitError",
        message: `${run.handler} asked to continue past ${run.maxSteps} ` +
          `steps in one run; the run was stopped there (what its steps committed stays)`,
      };
      break;
    }
    if (run.signal.aborted) {
      failure = stopped(run.signal);
      break;
    }
    let answer: unknown;
    try {
      answer = await run.admit(() => callStep(run, attempt, step, payload));
    } catch (error) {
      failure = run.signal.aborted ? stopped(run.signal) : classifyFailure(error);
      break;
    }
    if (await readAccountEpoch(run.memoryKv, pkg) !== run.grant.epoch) {
      failure = stopped(run.signal, "fenced");
      break;
    }
    // The receipts of its committed steps, kept as they come: a run its
    // process stopped part-way still links to what those steps did.
    await writeBegun(kv, project, pkg, { ...attempt, receipts: [...attempt.receipts] });
    coverage = coverageOf(answer) ?? coverage;
    const next = (answer as { continue?: unknown } | null)?.continue;
    if (next === undefined) break;
    const size = JSON.stringify(next)?.length ?? 0;
    if (size > APPLET_LIMITS.maxContinueChars) {
      failure = {
        outcome: "failed",
        notice: "review-run",
        name: "PayloadTooLargeError",
        message: `${run.handler} answered a continue value of ${size} characters of JSON; ` +
          `at most ${APPLET_LIMITS.maxContinueChars} are carried to its next step`,
      };
      break;
    }
    payload = { continue: next };
  }
  const ended: TaskAttempt = {
    ...attempt,
    endedAt: run.now(),
    outcome: failure?.outcome ?? "ok",
  };
  if (failure) ended.error = failure.message;
  // A run that failed part-way keeps what its committed steps covered, explicitly
  // partial; an obsolete one (fenced, called off) says nothing.
  const obsolete = failure?.outcome === "fenced" || failure?.outcome === "cancelled";
  if (coverage && !obsolete) ended.coverage = coverage;
  await writeBegun(kv, project, pkg, ended);
  return { attempt: ended, failure, coverage: failure ? null : coverage };
}

/**
 * Writes the attempt over itself, only while the begun attempt is there: a
 * reset or a removal dropped it, and an attempt of a forgotten device is not
 * brought back.
 */
async function writeBegun(
  kv: Deno.Kv,
  project: string,
  pkg: string,
  attempt: TaskAttempt,
): Promise<void> {
  const key = taskAttemptKey(project, pkg, attempt.task, attempt.id);
  const begun = await kv.get(key);
  if (begun.value !== null) await kv.atomic().check(begun).set(key, attempt).commit();
}

/** Calls one step of the attempt; its receipt joins the attempt's. */
async function callStep(
  run: AttemptRun,
  attempt: TaskAttempt,
  step: number,
  payload: unknown,
): Promise<unknown> {
  // Yield to what waits, so a person's call made meanwhile goes first.
  await new Promise((resolve) => setTimeout(resolve, 0));
  const occasion: Occasion = {
    kind: "task",
    task: { name: run.task, attempt: attempt.id, step, trigger: run.trigger },
  };
  const source: Source = run.trigger === "person"
    ? { kind: "person" }
    : run.trigger === "agent"
    ? { kind: "agent" }
    : { kind: "clock" };
  const { value } = await run.caller.callHandler(run.project, run.pkg, run.handler, {
    occasion,
    source,
    payload,
    account: run.grant,
    signal: run.signal,
    onReceipt: (receipt) => attempt.receipts.push(receipt.id),
  });
  return value;
}

/** The failure of an attempt its runner stopped. */
function stopped(signal: AbortSignal, reason?: string): Failure {
  const fenced = (reason ?? signal.reason) === "fenced";
  return fenced
    ? {
      outcome: "fenced",
      notice: null,
      name: "FencedError",
      message: "the device's account changed while this run was going; nothing of it was kept",
    }
    : {
      outcome: "cancelled",
      notice: null,
      name: "CancelledError",
      message: "the run was stopped (the device was paused, or Sync stopped); " +
        "the step that was running kept nothing",
    };
}
