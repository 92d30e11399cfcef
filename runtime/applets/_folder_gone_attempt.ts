/**
 * The attempt written in place of a run when a folder account's folder is
 * gone or cannot be read: only a person can mend that, and calling the
 * handler would tell nothing more, so it ends `failed` with the
 * `allow-access` notice. Private to the applets' folder.
 *
 * @module
 */
import type { AccountGrant } from "../host/mod.ts";
import { newId } from "../internal/id.ts";
import { type AttemptTrigger, type TaskAttempt, writeAttempt } from "./task_record.ts";
import type { TaskName } from "./_device_declaration.ts";
import type { AttemptEnd } from "./_run_task_attempt.ts";

/** Options for {@linkcode folderGoneAttempt}. */
export interface FolderGoneAttemptOptions {
  /** The runner's time, in ms. */
  now: () => number;
  /** Why it would have run. */
  trigger: AttemptTrigger;
  /** Which try of its run. */
  try: number;
}

/**
 * Writes the failed attempt of a task whose folder is gone.
 *
 * @param kv The installation's KV.
 * @param project The project's resolved path.
 * @param pkg The package id.
 * @param task The task's name.
 * @param grant The folder account's grant.
 * @param options Time, trigger and try.
 */
export async function folderGoneAttempt(
  kv: Deno.Kv,
  project: string,
  pkg: string,
  task: TaskName,
  grant: AccountGrant & { kind: "folder" },
  options: FolderGoneAttemptOptions,
): Promise<AttemptEnd> {
  const why = `${grant.folder} is gone or cannot be read`;
  const at = options.now();
  const attempt: TaskAttempt = {
    id: newId(at),
    task,
    accountId: grant.id,
    startedAt: at,
    endedAt: at,
    trigger: options.trigger,
    try: options.try,
    outcome: "failed",
    error: why,
    receipts: [],
  };
  await writeAttempt(kv, project, pkg, attempt);
  const failure = {
    outcome: "failed",
    notice: "allow-access",
    name: "AccountAccessError",
    message: why,
  } as const;
  return { attempt, failure, coverage: null };
}

/**
 * Whether a folder is there and can be listed.
 *
 * @param path The folder.
 */
export async function isFolder(path: string): Promise<boolean> {
  try {
    if (!(await Deno.stat(path)).isDirectory) return false;
    for await (const _ of Deno.readDir(path)) break;
    return true;
  } catch {
    return false;
  }
}
