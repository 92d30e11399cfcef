import assert from "node:assert/strict";
import { join } from "node:path";
import { REPO_ROOT, runSync, SYNC_RUN_ARGS } from "../internal/cli.ts";
import { writePackage } from "../internal/packages.ts";

/** A `sync serve` subprocess whose output lines can be waited for. */
class ServeProcess {
  #child: Deno.ChildProcess;
  #lines: string[] = [];
  #done: Promise<void>;

  constructor(home: string) {
    this.#child = new Deno.Command(Deno.execPath(), {
      args: [...SYNC_RUN_ARGS, "serve", "--port", "0"],
      cwd: REPO_ROOT,
      env: { SYNC_HOME: home, NO_COLOR: "1" },
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    this.#done = Promise.all([this.#read(this.#child.stdout), this.#read(this.#child.stderr)])
      .then(() => {});
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
  async line(pattern: RegExp, ms = 15_000): Promise<string> {
    const until = Date.now() + ms;
    while (Date.now() < until) {
      const found = this.#lines.find((l) => pattern.test(l));
      if (found) return found;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`no line like ${pattern} in ${JSON.stringify(this.#lines)}`);
  }

  async stop(signal: Deno.Signal): Promise<Deno.CommandStatus> {
    try {
      this.#child.kill(signal);
    } catch { /* already gone */ }
    const status = await this.#child.status;
    await this.#done;
    return status;
  }
}

Deno.test("`sync serve`: one clock per installation, taken over at once when its holder dies", async (t) => {
  const root = await Deno.makeTempDir({ prefix: "sync-serve-" });
  const home = join(root, "home");
  const project = join(root, "project");
  await Deno.mkdir(project);
  const first = new ServeProcess(home);
  let second: ServeProcess | undefined;
  try {
    const folder = await writePackage(join(root, "packages"), {
      id: "beat",
      permissions: ["background", "schedule"],
      handlers: ["beat.run"],
      service: `export default function register() { return { "beat.run": () => 1 }; }`,
      manifest: { schedule: [{ handler: "beat.run", description: "Beats", every: "1h" }] },
    });
    const installed = await runSync(home, ["install", folder, "--project", project, "--approve"]);
    assert.equal(installed.code, 0, installed.stderr);
    await first.line(/^Sync is serving at http:\/\/127\.0\.0\.1:\d+\/\?token=/);

    await t.step(
      "over HTTP, the app on the port the system picked admits only its own origin",
      async () => {
        const line = await first.line(/^Sync is serving at/);
        const [, port, token] = line.match(/http:\/\/127\.0\.0\.1:(\d+)\/\?token=(\w+)/)!;
        const health = await fetch(`http://127.0.0.1:${port}/api/health?token=${token}`);
        assert.equal(health.status, 200);
        assert.match(health.headers.get("set-cookie") ?? "", new RegExp(`^sync_token_${port}=`));
        await health.body?.cancel();
        const foreign = await fetch(`http://127.0.0.1:${port}/api/projects/open`, {
          method: "POST",
          headers: {
            cookie: `sync_token_${port}=${token}`,
            origin: "http://localhost:3000",
            "content-type": "text/plain",
          },
          body: JSON.stringify({ path: project }),
        });
        assert.equal(foreign.status, 403);
        await foreign.body?.cancel();
      },
    );

    await t.step("a second serve serves the app and leaves the clock to the first", async () => {
      second = new ServeProcess(home);
      await second.line(/^Sync is serving at/);
      await second.line(/^Another sync serve runs the clock for this installation/);
    });

    await t.step("when the first dies, the second runs the clock at once", async () => {
      await first.stop("SIGKILL");
      await second!.line(/^This process runs the clock now/, 5_000);
    });

    await t.step("Ctrl-C stops it, saying so", async () => {
      const status = await second!.stop("SIGINT");
      assert.equal(status.code, 0);
      await second!.line(/^Stopping/, 1_000);
    });

    await t.step("a port already taken is refused with what to do", async () => {
      const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
      try {
        const port = String((listener.addr as Deno.NetAddr).port);
        const result = await runSync(home, ["serve", "--port", port]);
        assert.equal(result.code, 1);
        assert.match(
          result.stderr,
          new RegExp(`Cannot serve on 127\\.0\\.0\\.1:${port}: the port is taken .*--port`),
        );
      } finally {
        listener.close();
      }
    });
  } finally {
    await first.stop("SIGKILL");
    await second?.stop("SIGKILL");
    await Deno.remove(root, { recursive: true });
  }
});
