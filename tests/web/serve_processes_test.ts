import assert from "node:assert/strict";
import { join } from "node:path";
import { runSync } from "../internal/cli.ts";
import { writePackage } from "../internal/packages.ts";
import { allGone, isAlive } from "../internal/processes.ts";
import { ProcessSocket } from "../internal/process_socket.ts";
import { ServeProcess } from "../internal/serve_process.ts";

/** The port and token of a serve, from the URL it printed. */
async function addressOf(serve: ServeProcess): Promise<{ port: number; token: string }> {
  const url = new URL(await serve.url());
  return { port: Number(url.port), token: url.searchParams.get("token")! };
}

Deno.test("`sync serve` stops the programs screens started, however it ends", async (t) => {
  const root = await Deno.makeTempDir({ prefix: "sync-serve-processes-" });
  const home = join(root, "home");
  const project = join(root, "project");
  await Deno.mkdir(project);
  const realProject = await Deno.realPath(project);
  const folder = await writePackage(join(root, "packages"), {
    id: "tools",
    permissions: ["background", "host.processes"],
    handlers: ["tools.ping"],
    service: `export default function register() { return { "tools.ping": () => 1 }; }`,
    manifest: { host: { processes: [{ id: "sh", program: "sh", args: ["-c"] }] } },
  });
  const installed = await runSync(home, ["install", folder, "--project", project, "--approve"]);
  assert.equal(installed.code, 0, installed.stderr);
  const serves: ServeProcess[] = [];
  const start = async () => {
    const serve = new ServeProcess(home);
    serves.push(serve);
    const address = await addressOf(serve);
    const socket = new ProcessSocket(address, {
      project: realProject,
      packageId: "tools",
      screen: crypto.randomUUID(),
    });
    return { serve, socket };
  };
  try {
    await t.step("stopping serve stops every program (stop-all)", async () => {
      const { serve, socket } = await start();
      const pid = await socket.spawn({ process: "sh", args: ["exec sleep 1000"] });
      assert.ok(await isAlive(pid));
      const status = await serve.stop("SIGINT");
      assert.equal(status.code, 0, serve.lines.join("\n"));
      assert.ok(await allGone([pid]));
      await socket.closed();
    });

    await t.step("a serve killed with kill -9: the next start sweeps its groups", async () => {
      const { serve, socket } = await start();
      const pid = await socket.spawn({ process: "sh", args: ["exec sleep 1000"] });
      await serve.stop("SIGKILL");
      await socket.closed();
      assert.ok(await isAlive(pid), "nothing stopped it: its serve died at once");
      const next = new ServeProcess(home);
      serves.push(next);
      await next.line(/^Stopped sh \(process group \d+\), left by a serve that was killed/);
      assert.ok(await allGone([pid]));
      assert.equal((await next.stop("SIGINT")).code, 0);
    });

    await t.step("a second Ctrl-C kills a TERM-ignoring group at once", async () => {
      const { serve, socket } = await start();
      const pid = await socket.spawn({
        process: "sh",
        args: ["trap '' TERM; echo ready; while :; do sleep 1; done"],
      });
      await socket.waitForOutput(pid, "ready\n");
      serve.stop("SIGINT").catch(() => {});
      await serve.line(/^Stopping/);
      const status = await serve.stop("SIGINT");
      assert.equal(status.code, 130);
      // Nothing of serve is left to stop it later: gone means the exit killed it.
      assert.ok(await allGone([pid]));
    });
  } finally {
    for (const serve of serves) await serve.stop("SIGKILL").catch(() => {});
    await Deno.remove(root, { recursive: true });
  }
});
