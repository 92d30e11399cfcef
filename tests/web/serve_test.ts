import assert from "node:assert/strict";
import { join } from "node:path";
import { runSync } from "../internal/cli.ts";
import { writePackage } from "../internal/packages.ts";
import { ServeProcess } from "../internal/serve_process.ts";

Deno.test("`sync serve`: one owner per installation, taken over at once when it dies", async (t) => {
  const root = await Deno.makeTempDir({ prefix: "sync-serve-" });
  const home = join(root, "home");
  const project = join(root, "project");
  await Deno.mkdir(project);
  const first = new ServeProcess(home);
  let second: ServeProcess | undefined;
  let third: ServeProcess | undefined;
  try {
    const folder = await writePackage(join(root, "packages"), {
      id: "beat",
      permissions: ["background", "schedule"],
      handlers: ["beat.run"],
      service: `export default function register() { return { "beat.run": () => 1 }; }`,
      manifest: { schedule: [{ handler: "beat.run", description: "Beats", every: "1h" }] },
    });
    const url = await first.url();

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

    await t.step(
      "the CLI's commands are taken on the socket in the home, not on the port",
      async () => {
        const served = new URL(url);
        const token = served.searchParams.get("token")!;
        const overPort = await fetch(new URL("/api/owner/commands", served), {
          method: "POST",
          headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
          body: JSON.stringify({ args: ["list", "--project", project], cwd: root }),
        });
        assert.equal(overPort.status, 404);
        await overPort.body?.cancel();
        const note = JSON.parse(await Deno.readTextFile(join(home, "owner.json")));
        assert.equal(note.socket, join(home, "owner.sock"));
        assert.ok((await Deno.lstat(note.socket)).isSocket);
        // Run by the serve, which holds the installation: over the socket.
        const list = await runSync(home, ["list", "--project", project]);
        assert.equal(list.code, 0, list.stderr);
      },
    );

    await t.step("a second serve is refused with the URL of the one running", async () => {
      second = new ServeProcess(home);
      const served = second.url().then(() => "served", () => "did not serve");
      const status = await Promise.race([second.status, served]);
      assert.notEqual(status, "served", "the second serve should not serve");
      assert.equal((status as Deno.CommandStatus).code, 1);
      const refusal = await second.line(/^sync serve: /);
      assert.ok(refusal.includes(url), refusal);
      assert.match(refusal, new RegExp(`\\(pid ${first.pid}\\)`));
    });

    await t.step("when the first dies, a serve started next owns it at once", async () => {
      await first.stop("SIGKILL");
      // Killed, it leaves its socket behind, which the next serve replaces.
      assert.ok((await Deno.lstat(join(home, "owner.sock"))).isSocket);
      // With no serve, the command owns the installation itself.
      const installed = await runSync(home, ["install", folder, "--project", project, "--approve"]);
      assert.equal(installed.code, 0, installed.stderr);
      third = new ServeProcess(home);
      await third.url();
      // Its clock runs beat.run, which never ran, at its first look.
      const until = Date.now() + 60_000;
      let ticked = false;
      while (!ticked && Date.now() < until) {
        const receipts = await runSync(home, ["receipts", "--project", project, "--json"]);
        assert.equal(receipts.code, 0, receipts.stderr);
        ticked = receipts.stdout.includes('"kind":"clock"');
        if (!ticked) await new Promise((resolve) => setTimeout(resolve, 250));
      }
      assert.ok(ticked, "the clock of the new serve should have run beat.run");
    });

    await t.step("Ctrl-C stops it, saying so, and takes its socket with it", async () => {
      const status = await third!.stop("SIGINT");
      assert.equal(status.code, 0);
      await third!.line(/^Stopping/, 1_000);
      await assert.rejects(Deno.lstat(join(home, "owner.sock")), Deno.errors.NotFound);
    });

    await t.step("something other than a socket where the socket goes is refused", async () => {
      await Deno.writeTextFile(join(home, "owner.sock"), "not a socket");
      try {
        const result = await runSync(home, ["serve", "--port", "0"]);
        assert.equal(result.code, 1);
        assert.match(
          result.stderr,
          /owner\.sock is where sync serve listens for the CLI, but something other than a socket is there; move it away/,
        );
        assert.equal(await Deno.readTextFile(join(home, "owner.sock")), "not a socket");
      } finally {
        await Deno.remove(join(home, "owner.sock"));
      }
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

    await t.step("a token file other users can read is refused, saying why", async () => {
      await Deno.chmod(join(home, "token"), 0o644);
      const serve = new ServeProcess(home);
      const served = serve.url().then(() => "served", () => "did not serve");
      const status = await Promise.race([serve.status, served]);
      await serve.stop("SIGKILL");
      assert.notEqual(status, "served");
      assert.equal((status as Deno.CommandStatus).code, 1);
      const refusal = await serve.line(/^sync serve: /);
      assert.match(refusal, /token can be read by other users \(mode 644\).*chmod 600/);
    });
  } finally {
    await first.stop("SIGKILL");
    await second?.stop("SIGKILL");
    await third?.stop("SIGKILL");
    await Deno.remove(root, { recursive: true });
  }
});
