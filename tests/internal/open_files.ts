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

/**
 * Paths under `folder` that this process holds open and that no longer exist
 * there, such as a `memory.kv` whose project folder was removed.
 */
export async function deletedFilesHeldOpen(folder: string): Promise<string[]> {
  return (await listOpenFiles())
    .filter((target) => target.startsWith(folder) && target.endsWith(" (deleted)"))
    .sort();
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
