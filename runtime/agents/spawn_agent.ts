/**
 * Starts an agent's program as a child process with piped stdio: the
 * {@linkcode AgentPeer} an ACP session speaks to. This is the small form; the
 * process supervisor's processes (own process group, swept after a crash)
 * have the same shape and take its place.
 *
 * @module
 */
import { AGENT_LIMITS } from "./agent_limits.ts";
import type { AgentExit, AgentPeer } from "./agent_peer.ts";

/** How long, after the process exited, its stderr is still read for its last words. */
const STDERR_GRACE_MS = 500;

/** What to run. */
export interface AgentCommand {
  /** The program, such as `npx` or `Deno.execPath()`. */
  command: string;
  /** Its arguments. */
  args: readonly string[];
  /** Extra environment, added to Sync's own. */
  env?: Record<string, string>;
}

/** Options for {@linkcode spawnAgent}. */
export interface SpawnAgentOptions {
  /** The folder it runs in: the project's. */
  cwd: string;
  /** How long `stop()` waits after SIGTERM before SIGKILL. */
  killAfterMs?: number;
  /** Called with each piece of its stderr, as text; what it throws is ignored. */
  onStderr?: (text: string) => void;
}

/**
 * Starts the agent's program.
 *
 * @param command What to run.
 * @param options Where, and how long a stop waits.
 * @returns The running process.
 * @throws {Deno.errors.NotFound} when the program is not installed.
 */
export function spawnAgent(command: AgentCommand, options: SpawnAgentOptions): AgentPeer {
  const child = new Deno.Command(command.command, {
    args: [...command.args],
    cwd: options.cwd,
    env: command.env,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const tail = new StderrTail(AGENT_LIMITS.stderrTailBytes);
  const decoder = new TextDecoder();
  const stderrRead = child.stderr.pipeTo(
    new WritableStream({
      write: (chunk) => {
        tail.add(chunk);
        const text = decoder.decode(chunk, { stream: true });
        try {
          if (text) options.onStderr?.(text);
        } catch { /* a listener that throws must not stop the reading, or the agent blocks */ }
      },
    }),
  ).catch(() => {});
  // Its stderr is read to the end, but not past a moment after it exited: a
  // process it started may hold the pipe open for as long as it lives.
  const stderrDone = child.status.then(() =>
    Promise.race([stderrRead, new Promise<void>((resolve) => setTimeout(resolve, STDERR_GRACE_MS))])
  );
  const exited: Promise<AgentExit> = Promise.all([child.status, stderrDone]).then(([status]) => ({
    code: status.code,
    signal: status.signal,
  }));
  let ended = false;
  exited.then(() => ended = true);
  const killAfterMs = options.killAfterMs ?? 3_000;
  return {
    stdin: child.stdin,
    stdout: child.stdout,
    exited,
    stderrTail: () => tail.text(),
    async stop() {
      if (ended) return;
      signal(child, "SIGTERM");
      const timer = setTimeout(() => signal(child, "SIGKILL"), killAfterMs);
      try {
        await exited;
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

function signal(child: Deno.ChildProcess, name: Deno.Signal): void {
  try {
    child.kill(name);
  } catch {
    // It ended meanwhile.
  }
}

/** The last `max` bytes of a stream, decoded as UTF-8 when asked for. */
class StderrTail {
  #chunks: Uint8Array[] = [];
  #size = 0;
  #max: number;

  constructor(max: number) {
    this.#max = max;
  }

  add(chunk: Uint8Array): void {
    this.#chunks.push(chunk);
    this.#size += chunk.length;
    while (this.#size - this.#chunks[0].length >= this.#max) {
      this.#size -= this.#chunks.shift()!.length;
    }
  }

  text(): string {
    const whole = new Uint8Array(this.#size);
    let at = 0;
    for (const chunk of this.#chunks) {
      whole.set(chunk, at);
      at += chunk.length;
    }
    const start = Math.max(0, whole.length - this.#max);
    // A character cut at the start decodes as U+FFFD, which is dropped.
    return new TextDecoder().decode(whole.subarray(start)).replace(/^\uFFFD+/, "");
  }
}
