/**
 * Test helper: `sync serve` as a child process, the way a person starts it,
 * whose output lines can be waited for.
 *
 * @module
 */
import { REPO_ROOT, SERVE_RUN_ARGS } from "./cli.ts";

/**
 * A `sync serve` child process over the installation `home`, on a port the
 * system picks, with the permissions `deno task serve` gives it.
 */
export class ServeProcess {
  #child: Deno.ChildProcess;
  #lines: string[] = [];
  #done: Promise<void>;

  constructor(home: string, args: string[] = ["--port", "0"], env: Record<string, string> = {}) {
    this.#child = new Deno.Command(Deno.execPath(), {
      args: [...SERVE_RUN_ARGS, "serve", ...args],
      cwd: REPO_ROOT,
      env: { ...env, SYNC_HOME: home, NO_COLOR: "1" },
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    this.#done = Promise.all([this.#read(this.#child.stdout), this.#read(this.#child.stderr)])
      .then(() => {});
  }

  /** The process id. */
  get pid(): number {
    return this.#child.pid;
  }

  /** Every line it wrote so far, stdout and stderr together. */
  get lines(): readonly string[] {
    return this.#lines;
  }

  /** How it ended. */
  get status(): Promise<Deno.CommandStatus> {
    return this.#child.status;
  }

  async #read(stream: ReadableStream<Uint8Array>): Promise<void> {
    let rest = "";
    for await (const chunk of stream.pipeThrough(new TextDecoderStream())) {
      const parts = (rest + chunk).split("\n");
      rest = parts.pop()!;
      this.#lines.push(...parts);
    }
    if (rest) this.#lines.push(rest);
  }

  /** Waits for a line matching `pattern`; fails after `ms`. */
  async line(pattern: RegExp, ms = 30_000): Promise<string> {
    const until = Date.now() + ms;
    while (Date.now() < until) {
      const found = this.#lines.find((l) => pattern.test(l));
      if (found) return found;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`no line like ${pattern} in ${JSON.stringify(this.#lines)}`);
  }

  /** Waits until it serves, and answers the URL it printed (with the token). */
  async url(): Promise<string> {
    const line = await this.line(/^Sync is serving at http:\/\/127\.0\.0\.1:\d+\/\?token=/);
    return line.replace(/^Sync is serving at /, "");
  }

  /** Sends `signal` and waits for it to end. */
  async stop(signal: Deno.Signal): Promise<Deno.CommandStatus> {
    try {
      this.#child.kill(signal);
    } catch { /* already gone */ }
    const status = await this.#child.status;
    await this.#done;
    return status;
  }
}
