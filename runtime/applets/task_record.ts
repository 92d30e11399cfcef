/**
 * A task's identity, which survives its runs, and its attempts, each with
 * its own trigger, try number, outcome and receipts. The newest attempts are
 * kept (`APPLET_LIMITS.attemptsKept`); older ones are dropped.
 *
 * @module
 */
import { APPLET_LIMITS } from "../limits.ts";
import { taskAttemptKey, taskAttemptsPrefix, taskKey } from "./keys.ts";
import type { Coverage } from "./coverage.ts";

/** Why an attempt ran. */
/**
 * What began an attempt: the task's interval, a change in the watched folder,
 * a person, an agent, a retry, or the account being connected or reset
 * (`fresh`: the first read of it).
 */
export type AttemptTrigger = "schedule" | "observation" | "person" | "agent" | "retry" | "fresh";

/** How an attempt ended. */
export type AttemptOutcome = "ok" | "failed" | "transient" | "unknown" | "fenced" | "cancelled";

/** A task: its identity and when it runs next. */
export interface TaskRecord {
  /** The task's name, such as `sync`. */
  task: string;
  /** When the task was first known, in ms. */
  createdAt: number;
  /** When it runs next, in ms; null when nothing is planned (not scheduled, or parked). */
  nextRunAt: number | null;
  /** The id of its newest attempt; null before the first. */
  lastAttempt: string | null;
  /** Transient failures in a row of the run being retried; 0 once one ends otherwise. */
  failuresInRow: number;
  /** A run's outcome is unknown: nothing runs until a person reviews it. */
  parkedUntilReview: boolean;
  /**
   * Due at once because the account was connected or reset: the next run is
   * its first read. Cleared when an attempt ends.
   */
  fresh?: boolean;
}

/** One run of a task: one or more steps (handler calls). */
export interface TaskAttempt {
  /** Sorts by the time it began. */
  id: string;
  /** The task's name. */
  task: string;
  /** The account it read. */
  accountId: string;
  /** When it began, in ms. */
  startedAt: number;
  /** When it ended, in ms; absent while it runs. */
  endedAt?: number;
  /** Why it ran. */
  trigger: AttemptTrigger;
  /** Which try of its run, from 1. */
  try: number;
  /** How it ended; absent while it runs. */
  outcome?: AttemptOutcome;
  /** What went wrong, in words. */
  error?: string;
  /** The receipts of its steps, in order. */
  receipts: string[];
  /** What its last step said it read. */
  coverage?: Coverage;
}

/**
 * A task's record, or null when it never ran nor was planned.
 *
 * @param kv The installation's KV.
 * @param project The project's resolved path.
 * @param pkg The package id.
 * @param task The task's name.
 */
export async function readTaskRecord(
  kv: Deno.Kv,
  project: string,
  pkg: string,
  task: string,
): Promise<TaskRecord | null> {
  return (await kv.get<TaskRecord>(taskKey(project, pkg, task))).value;
}

/**
 * Changes a task's record (made fresh when absent), retrying when another
 * writer changed it first.
 *
 * @param kv The installation's KV.
 * @param project The project's resolved path.
 * @param pkg The package id.
 * @param task The task's name.
 * @param change Makes the new record from the stored one.
 * @param now The time, in ms: a fresh record's `createdAt`.
 */
export async function updateTaskRecord(
  kv: Deno.Kv,
  project: string,
  pkg: string,
  task: string,
  change: (record: TaskRecord) => TaskRecord,
  now: number,
): Promise<TaskRecord> {
  const key = taskKey(project, pkg, task);
  while (true) {
    const before = await kv.get<TaskRecord>(key);
    const next = change(before.value ?? freshTask(task, now));
    if ((await kv.atomic().check(before).set(key, next).commit()).ok) return next;
  }
}

/** A task as it is before its first run: due at once. */
function freshTask(task: string, now: number): TaskRecord {
  return {
    task,
    createdAt: now,
    nextRunAt: null,
    lastAttempt: null,
    failuresInRow: 0,
    parkedUntilReview: false,
  };
}

/**
 * Writes an attempt as it begins, then drops the oldest of the task's
 * attempts past the number kept.
 *
 * @param kv The installation's KV.
 * @param project The project's resolved path.
 * @param pkg The package id.
 * @param attempt The attempt.
 */
export async function writeAttempt(
  kv: Deno.Kv,
  project: string,
  pkg: string,
  attempt: TaskAttempt,
): Promise<void> {
  const key = taskAttemptKey(project, pkg, attempt.task, attempt.id);
  // An attempt's id is new: written once, never over another.
  await kv.atomic().check({ key, versionstamp: null }).set(key, attempt).commit();
  const entries: Deno.KvEntry<unknown>[] = [];
  for await (const entry of kv.list({ prefix: taskAttemptsPrefix(project, pkg, attempt.task) })) {
    entries.push(entry);
  }
  const over = entries.slice(0, Math.max(0, entries.length - APPLET_LIMITS.attemptsKept));
  for (const old of over) await kv.atomic().check(old).delete(old.key).commit();
}

/**
 * A task's attempts, newest first.
 *
 * @param kv The installation's KV.
 * @param project The project's resolved path.
 * @param pkg The package id.
 * @param task The task's name.
 * @param limit How many at most.
 */
export async function listAttempts(
  kv: Deno.Kv,
  project: string,
  pkg: string,
  task: string,
  limit: number,
): Promise<TaskAttempt[]> {
  const attempts: TaskAttempt[] = [];
  const entries = kv.list<TaskAttempt>(
    { prefix: taskAttemptsPrefix(project, pkg, task) },
    { reverse: true, limit },
  );
  for await (const entry of entries) attempts.push(entry.value);
  return attempts;
}
