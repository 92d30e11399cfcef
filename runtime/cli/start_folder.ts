/**
 * The folder a person ran the command from. `deno task` runs in this
 * repository and passes the folder the person typed in as `INIT_CWD`; the
 * paths they typed are relative to that folder, not to the repository.
 *
 * @module
 */

/**
 * The folder the person ran `deno task` from: `INIT_CWD`, else the current
 * folder (also when the environment may not be read).
 */
export function startFolder(): string {
  let initCwd: string | undefined;
  try {
    initCwd = Deno.env.get("INIT_CWD");
  } catch { /* no env permission: the current folder it is */ }
  return initCwd || Deno.cwd();
}

/**
 * Makes the start folder the process's current folder, so that every path a
 * person typed resolves from where they typed it, and answers it as given
 * (not as the real path, so what is printed names the folder the person knows).
 */
export function enterStartFolder(): string {
  const folder = startFolder();
  if (folder !== Deno.cwd()) Deno.chdir(folder);
  return folder;
}
