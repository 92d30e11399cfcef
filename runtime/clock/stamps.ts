/**
 * What the clock remembers about its own attempts, in the installation KV:
 *
 * - the stamp: the last attempt per (project, package, handler). It is written
 *   when the attempt starts, not when it succeeds, so a handler that fails, or
 *   takes the process down with it, waits its interval like any other rather
 *   than being retried every minute;
 * - the last scheduled outcomes per (project, package), which tell a package
 *   that needs review (three failures in a row) from one that failed once;
 * - skip marks: the reason the clock last passed something over, so that a
 *   skip leaves one receipt when it starts rather than one every minute.
 *
 * @module
 */
import type { Outcome } from "../types.ts";
import {
  clockChangedKey,
  scheduleOutcomesKey,
  scheduleSkipKey,
  scheduleSkipsPrefix,
  scheduleStampKey,
  scheduleStampsPrefix,
} from "./keys.ts";

/** Failures in a row after which a package's clock needs review. */
export const REVIEW_AFTER_FAILURES = 3;

/** How an attempt stands: still running (or the process stopped during it), or ended. */
export type StampOutcome = Outcome | "running";

/** The last attempt of one scheduled handler in one project. */
export interface ScheduleStamp {
  /**
   * When the clock looked and found the handler due, in ms. Intervals count
   * from here rather than from when the call began, so a handler queued
   * behind others in a tick is not pushed past the next look.
   */
  at: number;
  /** When the call began, in ms. */
  startedAt: number;
  /** When the call ended, in ms; absent while it runs. */
  endedAt?: number;
  /**
   * `running` from when the attempt starts until {@linkcode endAttempt}
   * records how it ended; a stamp left `running` long past the call's limits
   * belongs to a process that stopped during it.
   */
  outcome: StampOutcome;
  /** `{ name, message }` when the attempt failed. */
  error?: { name: string; message: string };
}

/** Reads the last attempt of a scheduled handler, or null when it never ran. */
export async function readStamp(
  kv: Deno.Kv,
  project: string,
  id: string,
  handler: string,
): Promise<ScheduleStamp | null> {
  return (await kv.get<ScheduleStamp>(scheduleStampKey(project, id, handler))).value;
}

/** Every stamp in a project, by `"<id>\0<handler>"`. */
export async function readStamps(
  kv: Deno.Kv,
  project: string,
): Promise<Map<string, ScheduleStamp>> {
  const stamps = new Map<string, ScheduleStamp>();
  for await (const entry of kv.list<ScheduleStamp>({ prefix: scheduleStampsPrefix(project) })) {
    stamps.set(`${entry.key[2] as string}\0${entry.key[3] as string}`, entry.value);
  }
  return stamps;
}

/**
 * Stamps an attempt as it starts, before the handler runs, if nobody else
 * has since the clock looked: another process's clock on the same
 * installation may have found the same handler due.
 *
 * @param times.at When the clock looked and found the handler due.
 * @param times.startedAt When the call is starting.
 * @param times.previousAt The `at` of the stamp the clock saw when it looked; null when it never ran.
 * @param times.guard An entry that must be unchanged for the attempt to start (the
 *   project as remembered, so a removal in between wins).
 * @returns The stamp written, or null when another attempt took it first.
 */
export async function beginAttempt(
  kv: Deno.Kv,
  project: string,
  id: string,
  handler: string,
  times: {
    at: number;
    startedAt: number;
    previousAt: number | null;
    guard?: Deno.AtomicCheck;
  },
): Promise<ScheduleStamp | null> {
  const key = scheduleStampKey(project, id, handler);
  const current = await kv.get<ScheduleStamp>(key);
  if ((current.value?.at ?? null) !== times.previousAt) return null;
  const stamp: ScheduleStamp = { at: times.at, startedAt: times.startedAt, outcome: "running" };
  const op = kv.atomic().check(current);
  if (times.guard) op.check(times.guard);
  const result = await op.set(key, stamp).commit();
  return result.ok ? stamp : null;
}

/**
 * Takes an attempt back, as if it never started: the stamp the clock saw
 * before is put back (or removed, when it never ran). For an attempt that
 * could not start because the handler was already running, so that it does
 * not wait a whole interval for somebody else's call.
 */
export async function takeBackAttempt(
  kv: Deno.Kv,
  project: string,
  id: string,
  handler: string,
  begun: ScheduleStamp,
  previous: ScheduleStamp | null,
): Promise<void> {
  const key = scheduleStampKey(project, id, handler);
  const current = await kv.get<ScheduleStamp>(key);
  if (current.value?.startedAt !== begun.startedAt) return;
  const op = kv.atomic().check(current);
  await (previous ? op.set(key, previous) : op.delete(key)).commit();
}

/** How an attempt ended, for {@linkcode endAttempt}. */
export interface AttemptEnd {
  /** How the call ended; it is added to the package's recent outcomes when it counts. */
  outcome: Outcome;
  /** When the call ended, in ms. */
  endedAt: number;
  /** `{ name, message }` of what failed the call, as the stamp keeps it. */
  error?: { name: string; message: string };
  /**
   * Whether the outcome says something about the package. A call fenced off
   * because a person switched the clock off or updated the package did not
   * fail on its own account and is left out of the review count.
   */
  counts?: boolean;
}

/**
 * Records how an attempt ended: the stamp's outcome and, when it counts, the
 * package's recent outcomes, in one atomic write. A newer attempt's stamp is
 * never overwritten.
 */
export async function endAttempt(
  kv: Deno.Kv,
  project: string,
  id: string,
  handler: string,
  begun: ScheduleStamp,
  end: AttemptEnd,
): Promise<void> {
  const stampKey = scheduleStampKey(project, id, handler);
  const outcomesKey = scheduleOutcomesKey(project, id);
  const stamp: ScheduleStamp = {
    ...begun,
    outcome: end.outcome,
    endedAt: end.endedAt,
    ...(end.error ? { error: end.error } : {}),
  };
  // Another handler of the same package may end at the same moment in another
  // process; retry on a lost check so neither outcome is dropped.
  while (true) {
    const [current, outcomes] = await kv.getMany<[ScheduleStamp, Outcome[]]>([
      stampKey,
      outcomesKey,
    ]);
    // A stamp that is no longer this attempt's was forgotten (the package was
    // removed) or taken by a newer attempt: this outcome is not recorded.
    if (current.value?.startedAt !== begun.startedAt) return;
    const op = kv.atomic().check(current, outcomes);
    op.set(stampKey, stamp);
    if (end.counts !== false) {
      const recent = [...(outcomes.value ?? []), end.outcome].slice(-REVIEW_AFTER_FAILURES);
      op.set(outcomesKey, recent);
    }
    if ((await op.commit()).ok) return;
  }
}

/** A package's last scheduled outcomes in a project, oldest first (at most three). */
export async function recentOutcomes(
  kv: Deno.Kv,
  project: string,
  id: string,
): Promise<Outcome[]> {
  return (await kv.get<Outcome[]>(scheduleOutcomesKey(project, id))).value ?? [];
}

/**
 * True when a package's last three scheduled attempts in a project all
 * failed; one success resets it.
 */
export async function needsReview(kv: Deno.Kv, project: string, id: string): Promise<boolean> {
  const outcomes = await recentOutcomes(kv, project, id);
  return outcomes.length >= REVIEW_AFTER_FAILURES &&
    outcomes.slice(-REVIEW_AFTER_FAILURES).every((outcome) => outcome === "failed");
}

/** Why the clock last passed something over. */
export interface SkipMark {
  /**
   * The skip reason, such as `busy` or `switched-off`. A mark with the same
   * reason is no news; one with another reason is reported again.
   */
  reason: string;
  /** When the skip was first seen, in ms. */
  at: number;
}

/**
 * Marks a skip. Answers true when it is news, that is when nothing was
 * marked or the reason changed, so the caller reports it once.
 */
export async function markSkip(
  kv: Deno.Kv,
  key: { project: string; id?: string; handler?: string },
  mark: SkipMark,
): Promise<boolean> {
  const kvKey = scheduleSkipKey(key.project, key.id, key.handler);
  const current = await kv.get<SkipMark>(kvKey);
  if (current.value?.reason === mark.reason) return false;
  const result = await kv.atomic().check(current).set(kvKey, mark).commit();
  // Whoever won the race reports it.
  return result.ok;
}

/**
 * Forgets what the clock remembers about a package in a project — stamps,
 * recent outcomes and skip marks — as when it is removed, so that installing
 * it again starts afresh: never run, so due at once, and not needing review.
 *
 * @param kv The installation's KV.
 * @param project The project's resolved path.
 * @param id The package id.
 */
export async function forgetSchedule(kv: Deno.Kv, project: string, id: string): Promise<void> {
  const keys: Deno.KvKey[] = [scheduleOutcomesKey(project, id)];
  for (const prefix of [scheduleStampsPrefix(project, id), scheduleSkipsPrefix(project, id)]) {
    for await (const entry of kv.list({ prefix })) keys.push(entry.key);
  }
  for (let i = 0; i < keys.length; i += 100) {
    const op = kv.atomic();
    for (const key of keys.slice(i, i + 100)) op.delete(key);
    await op.set(clockChangedKey(), true).commit();
  }
}

/** Clears a skip mark, so that the next skip is reported again. */
export async function clearSkip(
  kv: Deno.Kv,
  key: { project: string; id?: string; handler?: string },
): Promise<void> {
  await kv.delete(scheduleSkipKey(key.project, key.id, key.handler));
}
