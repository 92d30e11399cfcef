import assert from "node:assert/strict";
import { join } from "node:path";
import { installPackage } from "../../runtime/lifecycle/install.ts";
import { removePackage } from "../../runtime/lifecycle/remove.ts";
import { PROCESS_LIMITS, type ProcessLimits } from "../../runtime/limits.ts";
import {
  type SpawnOptions,
  type SupervisedProcess,
  Supervisor,
} from "../../runtime/supervisor/mod.ts";
import { createApp, type WebApp } from "../../runtime/web/app.ts";
import { ScreenProcesses } from "../../runtime/web/screen_processes.ts";
import { ProcessClient, ProcessError } from "../../ui/screens/process_client.ts";
import { type PackageSpec, type TestHost, testHost, writePackage } from "../internal/packages.ts";
import { allGone, isAlive } from "../internal/processes.ts";
import {
  type AppAddress,
  openSocket,
  pageHeaders,
  processesPath,
  ProcessSocket,
} from "../internal/process_socket.ts";

const TOKEN = "screen-processes-test-token";

/** A package `id` whose screen may start `cat` and `sh -c <script>`. */
function toolsPackage(id: string): PackageSpec {
  return {
    id,
    permissions: ["background", "host.processes"],
    handlers: [`${id}.ping`],
    service: `export default function register() { return { "${id}.ping": () => 1 }; }`,
    manifest: {
      host: {
        processes: [
          { id: "cat", program: "cat" },
          { id: "sh", program: "sh", args: ["-c"] },
        ],
      },
    },
  };
}

const TOOLS = toolsPackage("tools");

/** The supervisor, remembering every process it started, so a test can follow one no page saw. */
class WatchedSupervisor extends Supervisor {
  readonly started: SupervisedProcess[] = [];

  override async spawn(owner: string, options: SpawnOptions): Promise<SupervisedProcess> {
    const process = await super.spawn(owner, options);
    this.started.push(process);
    return process;
  }
}

/** Waits until the supervisor has written off every process; fails after 15 s. */
async function noneRunning(supervisor: Supervisor): Promise<void> {
  for (let tries = 0; tries < 150 && supervisor.running().length > 0; tries++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  assert.deepEqual(supervisor.running().map((p) => p.owner), []);
}
interface ProcessApp extends AppAddress {
  test: TestHost;
  supervisor: WatchedSupervisor;
  processes: ScreenProcesses;
  /** A socket for a screen of `tools` (or of `packageId`) in the test project. */
  socket(screen: string, packageId?: string): ProcessSocket;
  close(): Promise<void>;
}

/** The app on a real server on 127.0.0.1, with a supervisor and `tools` installed and approved. */
async function processApp(
  options: { limits?: Partial<ProcessLimits>; environment?: () => Record<string, string> } = {},
): Promise<ProcessApp> {
  const test = await testHost();
  await test.install(TOOLS);
  const supervisor = new WatchedSupervisor({
    recordFolder: join(test.home, "processes"),
    secrets: [TOKEN],
    limits: { ...PROCESS_LIMITS, ...options.limits },
    environment: options.environment,
  });
  const processes = new ScreenProcesses(test.host, { supervisor });
  const served: { app?: WebApp } = {};
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    (request) => served.app!.fetch(request),
  );
  const port = server.addr.port;
  served.app = createApp(test.host, { token: TOKEN, port, processes });
  const sockets: ProcessSocket[] = [];
  return {
    port,
    token: TOKEN,
    test,
    supervisor,
    processes,
    socket(screen, packageId = "tools") {
      const socket = new ProcessSocket(
        { port, token: TOKEN },
        { project: test.project, packageId, screen },
      );
      sockets.push(socket);
      return socket;
    },
    async close() {
      processes.close();
      await Promise.all(sockets.map((socket) => socket.close()));
      await supervisor.close();
      await server.shutdown();
      await test.close();
    },
  };
}

Deno.test("`GET /api/processes` runs a screen's declared programs (seed 001's list)", async (t) => {
  const home = await Deno.makeTempDir({ prefix: "sync-spawn-home-" });
  // Called as a program is being started, before it runs.
  let starting: (() => void) | undefined;
  const app = await processApp({
    environment: () => {
      starting?.();
      return { ...Deno.env.toObject(), HOME: home };
    },
  });
  try {
    await t.step("stdin is echoed to stdout until it is closed", async () => {
      const socket = app.socket("echo");
      const pid = await socket.spawn({ process: "cat" });
      assert.deepEqual(await socket.request({ type: "write", pid, text: "hello\n" }), {
        type: "done",
        id: 2,
      });
      await socket.waitForOutput(pid, "hello\n");
      await socket.request({ type: "write", pid, text: "again\n" });
      await socket.request({ type: "end", pid });
      assert.deepEqual(await socket.exited(pid), { code: 0, signal: null });
      assert.equal(socket.output(pid), "hello\nagain\n");
    });

    await t.step("stderr and the exit code arrive", async () => {
      const socket = app.socket("stderr");
      const pid = await socket.spawn({ process: "sh", args: ["echo out; echo oops >&2; exit 3"] });
      assert.deepEqual(await socket.exited(pid), { code: 3, signal: null });
      assert.equal(socket.output(pid), "out\n");
      assert.equal(socket.output(pid, "stderr"), "oops\n");
      const last = socket.messages.filter((m) => "pid" in m && m.pid === pid).at(-1);
      assert.equal(last?.type, "exited", "exited is the last message about the pid");
    });

    await t.step("only the screen that started a program can write to it or kill it", async () => {
      const owner = app.socket("owner");
      const other = app.socket("other");
      const pid = await owner.spawn({ process: "cat" });
      for (const type of ["write", "end", "kill"]) {
        const answer = await other.request({
          type,
          pid,
          ...(type === "write" ? { text: "x" } : {}),
        });
        assert.equal(answer.type, "error", type);
        assert.match(
          (answer as { message: string }).message,
          new RegExp(`pid ${pid} is not a running program this screen started`),
        );
      }
      assert.ok(await isAlive(pid), "the other screen's requests reached nothing");
      assert.equal(owner.output(pid), "", "nothing was written to it");
      assert.equal((await owner.request({ type: "kill", pid })).type, "done");
      assert.equal((await owner.exited(pid)).signal, "SIGTERM");
    });

    await t.step("kill reaches a program that traps TERM, and SIGKILL follows", async () => {
      const socket = app.socket("trap");
      const pid = await socket.spawn({
        process: "sh",
        args: ["trap 'echo got-term' TERM; echo ready; while :; do sleep 0.1; done"],
      });
      await socket.waitForOutput(pid, "ready\n");
      await socket.request({ type: "kill", pid });
      assert.deepEqual(await socket.exited(pid), { code: 137, signal: "SIGKILL" });
      assert.match(socket.output(pid), /got-term/);
      assert.ok(await allGone([pid]));
    });

    await t.step("a dropped channel stops the program", async () => {
      const socket = app.socket("dropped");
      const pid = await socket.spawn({ process: "sh", args: ["exec sleep 1000"] });
      assert.ok(await isAlive(pid));
      await socket.close();
      assert.ok(await allGone([pid]), "the socket closed, so the program was stopped");
    });

    await t.step("a character split across reads arrives whole", async () => {
      const socket = app.socket("utf8");
      const pid = await socket.spawn({
        process: "sh",
        args: [
          "printf '\\303'; sleep 0.3; printf '\\251\\n'; printf '\\342\\202' >&2; sleep 0.3; " +
          "printf '\\254\\n' >&2",
        ],
      });
      await socket.exited(pid);
      assert.equal(socket.output(pid), "é\n");
      assert.equal(socket.output(pid, "stderr"), "€\n");
      const pieces = socket.messages.filter((m) => m.type === "stdout" || m.type === "stderr");
      assert.ok(pieces.every((m) => !("text" in m) || !m.text.includes("\uFFFD")));
    });

    await t.step("`~/` in cwd is the person's home, and a missing folder is made", async () => {
      const socket = app.socket("home");
      const pid = await socket.spawn({ process: "sh", args: ["pwd"], cwd: "~/made/here" });
      assert.deepEqual(await socket.exited(pid), { code: 0, signal: null });
      assert.equal(socket.output(pid), `${join(await Deno.realPath(home), "made", "here")}\n`);
    });

    await t.step("without cwd a program starts in the project; env sets and removes", async () => {
      const socket = app.socket("cwd");
      Deno.env.set("SYNC_SPAWN_TEST_HIDDEN", "1");
      try {
        const pid = await socket.spawn({
          process: "sh",
          args: ['pwd; echo "a=$A b=${HOME-unset} sync=${SYNC_SPAWN_TEST_HIDDEN-unset}"'],
          env: { A: "1", HOME: null },
        });
        await socket.exited(pid);
        assert.equal(socket.output(pid), `${app.test.project}\na=1 b=unset sync=unset\n`);
      } finally {
        Deno.env.delete("SYNC_SPAWN_TEST_HIDDEN");
      }
      const refused = await socket.request({
        type: "spawn",
        process: "sh",
        args: ["true"],
        env: { SYNC_HOME: "/x" },
      });
      assert.equal(refused.type, "error");
      assert.match((refused as { message: string }).message, /SYNC_\* variables/);
    });

    await t.step("env may not choose the program, nor load code into it", async () => {
      const socket = app.socket("env-program");
      const fake = join(app.test.project, "fakebin");
      await Deno.mkdir(fake);
      await Deno.writeTextFile(join(fake, "cat"), "#!/bin/sh\necho fake\n", { mode: 0o755 });
      const before = app.supervisor.started.length;
      const cases: [Record<string, string>, RegExp][] = [
        [{ PATH: fake }, /a screen may not set PATH: it would change which programs run/],
        // A relative folder, which would be taken from the cwd the screen also chooses.
        [{ PATH: "fakebin" }, /a screen may not set PATH: /],
        [
          { LD_PRELOAD: join(fake, "evil.so") },
          /a screen may not set LD_PRELOAD: it would change which code the approved program runs/,
        ],
        [{ DYLD_INSERT_LIBRARIES: join(fake, "evil.dylib") }, /may not set DYLD_INSERT_LIBRARIES/],
      ];
      for (const [env, reason] of cases) {
        const answer = await socket.request({ type: "spawn", process: "cat", cwd: ".", env });
        assert.equal(answer.type, "error", JSON.stringify(env));
        assert.equal((answer as { name: string }).name, "InvalidInputError");
        assert.match((answer as { message: string }).message, reason);
      }
      assert.equal(app.supervisor.started.length, before, "nothing was started");
    });

    await t.step("a declared program's relative path is taken from the project", async () => {
      await app.test.install({
        ...toolsPackage("runner"),
        manifest: { host: { processes: [{ id: "run", program: "./run.sh" }] } },
      });
      const script = (text: string) => `#!/bin/sh\necho ${text}\n`;
      await Deno.writeTextFile(join(app.test.project, "run.sh"), script("project"), {
        mode: 0o755,
      });
      await Deno.mkdir(join(app.test.project, "elsewhere"));
      await Deno.writeTextFile(join(app.test.project, "elsewhere", "run.sh"), script("chosen"), {
        mode: 0o755,
      });
      const socket = app.socket("relative", "runner");
      const pid = await socket.spawn({ process: "run", cwd: "elsewhere" });
      assert.deepEqual(await socket.exited(pid), { code: 0, signal: null });
      assert.equal(socket.output(pid), "project\n", "not the file in the cwd the screen chose");
    });

    await t.step(
      "a spawn from before a reload is refused or killed, never left running",
      async () => {
        const pidFile = join(app.test.project, "reload.pid");
        const before = app.socket("reloading");
        await before.opened();
        await before.send({
          type: "spawn",
          process: "sh",
          args: [`echo $$ > ${pidFile}; exec sleep 1000`],
        });
        // The screen reloads: its new instance opens a socket under the same id.
        const after = app.socket("reloading");
        await after.opened();
        await before.closed();
        assert.equal(before.closeEvent?.code, 4000);
        // It may have been refused, or killed before it wrote its pid: either is right.
        let pid = 0;
        for (let tries = 0; tries < 100 && !pid; tries++) {
          pid = Number(await Deno.readTextFile(pidFile).catch(() => "0"));
          if (!pid) await new Promise((resolve) => setTimeout(resolve, 50));
        }
        if (pid) {
          assert.ok(await allGone([pid]), "what the screen started before reloading is gone");
          const answer = await after.request({ type: "write", pid, text: "x" });
          assert.equal(answer.type, "error", "the new instance cannot reach it");
        }
        await noneRunning(app.supervisor);
      },
    );

    await t.step("a spawn in flight when the socket closes is killed once started", async () => {
      const pidFile = join(app.test.project, "inflight.pid");
      const socket = app.socket("in-flight");
      await socket.send({
        type: "spawn",
        process: "sh",
        args: [`echo $$ > ${pidFile}; exec sleep 1000`],
      });
      socket.socket.close();
      let pid = 0;
      for (let tries = 0; tries < 100 && !pid; tries++) {
        pid = Number(await Deno.readTextFile(pidFile).catch(() => "0"));
        if (!pid) await new Promise((resolve) => setTimeout(resolve, 50));
      }
      if (pid) assert.ok(await allGone([pid]), "it started after the close, and was stopped");
      // Whether or not it started, nothing of the screen runs.
      await noneRunning(app.supervisor);
    });

    await t.step("a start under way when its socket closes is stopped once begun", async () => {
      const pidFile = join(app.test.project, "starting.pid");
      const socket = app.socket("starting");
      let closedWhileStarting = false;
      starting = () => {
        starting = undefined;
        const channel = app.processes.channels.find((c) => c.address.screen === "starting");
        channel?.close(1000, "The screen unloaded");
        closedWhileStarting = channel !== undefined;
      };
      await socket.send({
        type: "spawn",
        process: "sh",
        args: [`echo $$ > ${pidFile}; exec sleep 1000`],
      });
      const before = app.supervisor.started.length;
      await socket.closed();
      assert.ok(closedWhileStarting, "the socket closed while the program was being started");
      // The start goes on to the end, and what it started is stopped.
      let started: SupervisedProcess | undefined;
      for (let tries = 0; tries < 300 && !started; tries++) {
        started = app.supervisor.started[before];
        if (!started) await new Promise((resolve) => setTimeout(resolve, 50));
      }
      assert.ok(started, "the program was started");
      assert.equal((await started.gone).signal, "SIGTERM");
      assert.ok(await allGone([started.pid]));
      await noneRunning(app.supervisor);
      assert.ok(!socket.messages.some((m) => m.type === "spawned"));
    });

    await t.step("a program may close its output and keep running", async () => {
      const socket = app.socket("quiet");
      const pid = await socket.spawn({
        process: "sh",
        args: ["echo closing; exec >&- 2>&-; exec sleep 1000"],
      });
      await socket.waitForOutput(pid, "closing\n");
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      assert.ok(await isAlive(pid), "closing its output did not stop it");
      assert.ok(!socket.messages.some((m) => m.type === "exited" && m.pid === pid));
      await socket.request({ type: "kill", pid });
      assert.equal((await socket.exited(pid)).signal, "SIGTERM");
    });

    await t.step("removing the package stops its programs", async () => {
      const socket = app.socket("removal");
      const pid = await socket.spawn({ process: "cat" });
      await removePackage(app.test.host, "tools", app.test.project);
      assert.equal((await socket.exited(pid)).signal, "SIGTERM");
      assert.ok(await allGone([pid]));
      const refused = await socket.request({ type: "spawn", process: "cat" });
      assert.equal(refused.type, "error");
      assert.match((refused as { message: string }).message, /tools is not installed in/);
    });

    await t.step("updating the package stops its programs", async () => {
      const folder = await writePackage(join(home, "packages"), TOOLS);
      await installPackage(app.test.host, folder, app.test.project, { approve: true });
      const socket = app.socket("update");
      const pid = await socket.spawn({ process: "cat" });
      await installPackage(
        app.test.host,
        await writePackage(join(home, "packages"), { ...TOOLS, version: "1.1.0" }),
        app.test.project,
        { approve: true, replace: true },
      );
      assert.equal((await socket.exited(pid)).signal, "SIGTERM");
      assert.ok(await allGone([pid]));
      assert.ok((await socket.spawn({ process: "cat" })) > 0, "the updated version starts it");
    });

    await t.step(
      "`ProcessClient`: a throwing output callback still lets `exited` settle",
      async () => {
        const thrown: unknown[] = [];
        const client = new ProcessClient({
          project: app.test.project,
          packageId: "tools",
          screen: "client",
          connect: (path) => openSocket(app, path),
          onCallbackError: (error) => thrown.push(error),
        });
        const heard: string[] = [];
        const handle = await client.spawn("sh", {
          args: ["echo one; echo two >&2; sleep 0.2; echo three; exit 5"],
        }, {
          onStdout: (text) => {
            heard.push(`out:${text}`);
            throw new Error("a screen's bug");
          },
          onStderr: (text) => {
            heard.push(`err:${text}`);
            throw new Error("another");
          },
        });
        assert.deepEqual(await handle.exited, { code: 5, signal: null });
        assert.deepEqual(
          heard.filter((h) => h.startsWith("out:")).join(""),
          "out:one\nout:three\n",
        );
        assert.deepEqual(heard.filter((h) => h.startsWith("err:")), ["err:two\n"]);
        assert.equal(thrown.length, heard.length);
        client.close();
      },
    );

    await t.step("`ProcessClient`: write, end, kill, refusals and close", async () => {
      const client = new ProcessClient({
        project: app.test.project,
        packageId: "tools",
        screen: "client-2",
        connect: (path) => openSocket(app, path),
      });
      let out = "";
      const cat = await client.spawn("cat", {}, { onStdout: (text) => out += text });
      await cat.write("über\n");
      await cat.end();
      assert.deepEqual(await cat.exited, { code: 0, signal: null });
      assert.equal(out, "über\n");
      await assert.rejects(cat.write("late"), (error: Error) => {
        assert.ok(error instanceof ProcessError);
        assert.match(error.message, /has exited/);
        return true;
      });
      await assert.rejects(client.spawn("nope"), (error: ProcessError) => {
        assert.equal(error.kind, "NotFoundError");
        assert.match(error.message, /declares no such program under host.processes/);
        return true;
      });
      const sleeper = await client.spawn("sh", { args: ["exec sleep 1000"] });
      const left = await client.spawn("sh", { args: ["exec sleep 1000"] });
      await sleeper.kill();
      assert.equal((await sleeper.exited).signal, "SIGTERM");
      client.close();
      assert.deepEqual(await left.exited, { code: null, signal: null });
      assert.ok(await allGone([left.pid]), "closing the client stopped what it started");
      await assert.rejects(client.spawn("cat"), /closed/);
    });
  } finally {
    await app.close();
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("`GET /api/processes` refuses what it must", async (t) => {
  const app = await processApp({ limits: { maxPerOwner: 2, maxRunning: 3 } });
  const query = processesPath({ project: app.test.project, packageId: "tools", screen: "s" });
  const upgrade = (headers: Record<string, string>) =>
    fetch(`http://127.0.0.1:${app.port}${query}`, {
      headers: { connection: "Upgrade", upgrade: "websocket", ...headers },
    });
  try {
    await t.step("a page of another origin is refused before the upgrade", async () => {
      const response = await upgrade({ ...pageHeaders(app), origin: "http://127.0.0.1:1" });
      assert.equal(response.status, 403);
      assert.match((await response.json()).error, /Pages from http:\/\/127\.0\.0\.1:1 may not/);
      const socket = openSocket(app, query, {
        ...pageHeaders(app),
        origin: "http://evil.example",
      });
      const opened = await new Promise<boolean>((resolve) => {
        socket.onopen = () => resolve(true);
        socket.onerror = () => resolve(false);
      });
      assert.equal(opened, false);
    });

    await t.step("no Origin, and no cookie, are refused", async () => {
      const { origin: _, ...cookieOnly } = pageHeaders(app);
      const noOrigin = await upgrade(cookieOnly);
      assert.equal(noOrigin.status, 403);
      await noOrigin.body?.cancel();
      const noCookie = await upgrade({ origin: pageHeaders(app).origin });
      assert.equal(noCookie.status, 401);
      await noCookie.body?.cancel();
    });

    await t.step("a bad query is refused with what is wrong", async () => {
      const response = await fetch(
        `http://127.0.0.1:${app.port}/api/processes?project=relative&id=tools&screen=s`,
        { headers: { ...pageHeaders(app), upgrade: "websocket" } },
      );
      assert.equal(response.status, 400);
      assert.match((await response.json()).error, /is relative/);
    });

    await t.step("a request that is not a WebSocket upgrade is refused with why", async () => {
      const plain = await fetch(`http://127.0.0.1:${app.port}${query}`, {
        headers: pageHeaders(app),
      });
      assert.equal(plain.status, 426);
      assert.match((await plain.json()).error, /is a WebSocket: open it as one/);
      const broken = await upgrade(pageHeaders(app));
      assert.equal(broken.status, 400);
      assert.match((await broken.json()).error, /this upgrade is not one/);
    });

    await t.step("malformed and unknown messages are refused with a reason", async () => {
      const socket = app.socket("malformed");
      const cases: [string | Uint8Array, RegExp][] = [
        ["not json", /not JSON/],
        ["[1]", /not a JSON object/],
        [new Uint8Array([1, 2]), /not binary frames/],
        [JSON.stringify({ type: "spawn" }), /"id" must be/],
        [JSON.stringify({ type: "launch", id: 7 }), /unknown message type "launch"/],
        [JSON.stringify({ type: "spawn", id: 8 }), /"process" must name/],
        [JSON.stringify({ type: "spawn", id: 9, process: "cat", args: [1] }), /"args" must be/],
        [JSON.stringify({ type: "write", id: 10, pid: -1, text: "x" }), /"pid" must be/],
        [JSON.stringify({ type: "kill", id: 11, pid: 1, extra: true }), /unknown field "extra"/],
      ];
      for (const [data, reason] of cases) {
        const before = socket.messages.length;
        await socket.sendRaw(data);
        const answer = await socket.waitFor((m) => socket.messages.indexOf(m) >= before);
        assert.equal(answer.type, "error", String(data));
        assert.match((answer as { message: string }).message, reason);
      }
      assert.ok((await socket.spawn({ process: "sh", args: ["true"] })) > 0, "it still works");
    });

    await t.step("a program the manifest does not declare is refused", async () => {
      const socket = app.socket("undeclared");
      const answer = await socket.request({ type: "spawn", process: "rm" });
      assert.equal(answer.type, "error");
      assert.equal((answer as { name: string }).name, "NotFoundError");
      assert.match(
        (answer as { message: string }).message,
        /declares no such program under host.processes \(it declares cat, sh\)/,
      );
    });

    await t.step("a package without host.processes, or not approved, is refused", async () => {
      await app.test.install({
        id: "plain",
        handlers: ["plain.ping"],
        service: `export default function register() { return { "plain.ping": () => 1 }; }`,
      });
      const plain = await app.socket("plain", "plain").request({ type: "spawn", process: "cat" });
      assert.equal((plain as { name: string }).name, "PermissionDeniedError");
      // An author adds a program to the folder installed: nobody approved it.
      const folder = await app.test.install(toolsPackage("later"));
      const manifestPath = join(folder, "manifest.json");
      const manifest = JSON.parse(await Deno.readTextFile(manifestPath));
      manifest.host.processes.push({ id: "curl", program: "curl" });
      await Deno.writeTextFile(manifestPath, JSON.stringify(manifest));
      const answer = await app.socket("later", "later").request({ type: "spawn", process: "cat" });
      assert.equal((answer as { name: string }).name, "ApprovalRequiredError");
      assert.match((answer as { message: string }).message, /process:curl curl/);
    });

    await t.step("limits: per screen and at once, each refused with a reason", async () => {
      const first = app.socket("limit-1");
      for (let i = 0; i < 2; i++) await first.spawn({ process: "sh", args: ["exec sleep 1000"] });
      const third = await first.request({ type: "spawn", process: "sh", args: ["true"] });
      assert.equal((third as { name: string }).name, "ProcessLimitError");
      assert.match((third as { message: string }).message, /the most one owner may \(2\)/);
      const second = app.socket("limit-2");
      await second.spawn({ process: "sh", args: ["exec sleep 1000"] });
      const fourth = await second.request({ type: "spawn", process: "sh", args: ["true"] });
      assert.match((fourth as { message: string }).message, /the most at once \(3\)/);
      const pids = app.supervisor.running().map((p) => p.pid);
      await first.close();
      await second.close();
      assert.ok(await allGone(pids));
      await noneRunning(app.supervisor);
    });

    await t.step("an app stopping closes every socket and stops what they started", async () => {
      const socket = app.socket("stopping");
      const pid = await socket.spawn({ process: "sh", args: ["exec sleep 1000"] });
      app.processes.close();
      await socket.closed();
      assert.equal(socket.closeEvent?.code, 1001);
      assert.ok(await allGone([pid]));
    });
  } finally {
    await app.close();
  }
});
