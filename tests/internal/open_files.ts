/**
 * Test helper: the files this process holds open that were deleted since, as
 * Linux lists them under `/proc/<pid>/fd`. A memory the host kept open after
 * its project folder was removed shows there as `…/memory.kv (deleted)`.
 * Deno lets only a fully privileged process read its own `/proc/self`, so a
 * child process (`ls`) reads it.
 *
 * @module
 */

/** Whether this system lists a process's open files under `/proc/<pid>/fd`. */
export async function canListOpenFiles(): Promise<boolean> {
  if (Deno.build.os !== "linux") return false;
  try {
    return (await listOpenFiles()).length > 0;
  } catch {
    return false;
  }
}

/** Options for {@linkcode deletedFilesHeldOpen}. */
export interface DeletedFilesHeldOpenOptions {
  /** How long to wait for the last of them to close; 30 s by default. */
  waitMs?: number;
}

/**
 * Paths under `folder` that this process holds open and that no longer exist
 * there, such as a `memory.kv` whose project folder was removed. Closing a
 * database lets go of its file a moment later, on another thread, and a
 * listing taken while a file closes can fail: it looks again until none is
 * held open, and answers what is still held once `waitMs` has passed.
 */
export async function deletedFilesHeldOpen(
  folder: string,
  options: DeletedFilesHeldOpenOptions = {},
): Promise<string[]> {
  const until = Date.now() + (options.waitMs ?? 30_000);
  for (;;) {
    const listed = await listOpenFiles().catch(() => null);
    const held = listed
      ?.filter((target) => target.startsWith(folder) && target.endsWith(" (deleted)"))
      .sort();
    if (held?.length === 0) return held;
    if (Date.now() >= until) {
      if (!held) throw new Error(`cannot list /proc/${Deno.pid}/fd`);
      return held;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function listOpenFiles(): Promise<string[]> {
  const { code, stdout } = await new Deno.Command("ls", {
    args: ["-l", `/proc/${Deno.pid}/fd`],
    stdout: "piped",
    stderr: "null",
  }).output();
  // 1 is `ls` finding a file closed while it listed (its own, say): the rest is listed.
  if (code > 1) throw new Error(`cannot list /proc/${Deno.pid}/fd`);
  return new TextDecoder().decode(stdout).split("\n")
    .map((line) => line.split(" -> ")[1])
    .filter((target): target is string => target !== undefined);
}
