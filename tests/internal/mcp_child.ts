/**
 * `deno task mcp` as a test runs it: a real child process, as an MCP client
 * would start it, and a way to stop a process it started in the background.
 *
 * @module
 */
import { REPO_ROOT } from "./cli.ts";

/**
 * Starts `deno task mcp --project <project>` in the installation `home`, its
 * three streams piped. A serve it starts in the background picks a free port.
 *
 * @param home The installation folder (`SYNC_HOME`).
 * @param project The project folder it is started for.
 * @param env More environment variables for it.
 */
export function spawnMcp(
  home: string,
  project: string,
  env: Record<string, string> = {},
): Deno.ChildProcess {
  return new Deno.Command(Deno.execPath(), {
    args: ["task", "-q", "mcp", "--project", project],
    cwd: REPO_ROOT,
    env: { SYNC_HOME: home, SYNC_PORT: "0", NO_COLOR: "1", ...env },
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
}

/**
 * Stops a process a test caused to be started, by its pid, and waits until
 * it is gone: SIGTERM, then SIGKILL after 20 s.
 *
 * @param pid The process's id.
 */
export async function stopProcess(pid: number): Promise<void> {
  try {
    Deno.kill(pid, "SIGTERM");
  } catch {
    return;
  }
  const until = Date.now() + 20_000;
  while (Date.now() < until) {
    try {
      // Signal 0 would do, but Deno names only real signals: SIGCONT asks nothing of a running one.
      Deno.kill(pid, "SIGCONT");
    } catch {
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  Deno.kill(pid, "SIGKILL");
}
