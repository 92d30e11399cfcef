import assert from "node:assert/strict";
import { join } from "node:path";
import { ProcessLimitError, ProcessStartError } from "../../runtime/errors.ts";
import { PROCESS_LIMITS } from "../../runtime/limits.ts";
import { Supervisor, type SupervisorOptions } from "../../runtime/supervisor/mod.ts";
import { processTable } from "../../runtime/supervisor/process_table.ts";
import { rejectsWith } from "../internal/rejects_with.ts";
import { allGone, isAlive, readAll } from "../internal/processes.ts";
import { tempFolder } from "../internal/temp_folder.ts";

/** The supervisor's entry, for scripts run in a process of their own. */
const SUPERVISOR_MODULE = new URL("../../runtime/supervisor/mod.ts", import.meta.url).href;

/** A supervisor writing its record in a new temporary folder. */
async function supervisor(options: Partial<SupervisorOptions> = {}) {
  const root = await tempFolder("sync-supervisor-");
  const recordFolder = join(root, "processes");
  return { root, recordFolder, supervisor: new Supervisor({ recordFolder, ...options }) };
}

/** A shell script run by `sh -c`. */
function sh(script: string) {
  return { command: "sh", args: ["-c", script] };
}

Deno.test("`Supervisor.spawn()` starts a program in a process group of its own", async (t) => {
  await t.step(
    "stdin reaches the program, and its stdout comes back until stdin closes",
    async () => {
      const { supervisor: s } = await supervisor();
      const cat = await s.spawn("tests", { command: "cat" });
      const output = readAll(cat.text());
      await cat.write("hello ");
      await cat.write(new TextEncoder().encode("world\n"));
      await cat.end();
      assert.equal(await output, "hello world\n");
      assert.deepEqual(await cat.exited, { code: 0, signal: null });
      await cat.gone;
      assert.deepEqual(s.running(), []);
    },
  );

  await t.step("its pid is its process group's id", async () => {
    const { supervisor: s } = await supervisor();
    const sleeper = await s.spawn("tests", { command: "sleep", args: ["1000"] });
    const [row] = await processTable([sleeper.pid]);
    assert.equal(row.pgid, sleeper.pid);
    assert.notEqual(row.pgid, (await processTable([Deno.pid]))[0].pgid);
    await sleeper.stdout.cancel();
    assert.equal((await sleeper.stop()).signal, "SIGTERM");
  });

  await t.step("the group is written down while it runs, and written off when gone", async () => {
    const { supervisor: s, root } = await supervisor({ now: () => Date.UTC(2026, 0, 2) });
    const sleeper = await s.spawn("issues", { command: "sleep", args: ["1000"], cwd: root });
    const note = JSON.parse(await Deno.readTextFile(s.recordFile));
    assert.equal(note.supervisor.pid, Deno.pid);
    assert.equal(note.groups.length, 1);
    const [group] = note.groups;
    assert.equal(group.pgid, sleeper.pid);
    assert.equal(group.owner, "issues");
    assert.equal(group.command, "sleep");
    assert.deepEqual(group.args, ["1000"]);
    assert.equal(group.startedAt, "2026-01-02T00:00:00.000Z");
    assert.equal(group.started, (await processTable([sleeper.pid]))[0].started);
    await sleeper.stdout.cancel();
    await s.stopAll();
    await assert.rejects(Deno.stat(s.recordFile), Deno.errors.NotFound);
  });

  await t.step("stdout decoded as text keeps a character split across reads whole", async () => {
    const { supervisor: s } = await supervisor();
    // "é" is C3 A9; the pause makes the two bytes arrive in separate reads.
    const split = await s.spawn("tests", sh("printf '\\303'; sleep 0.3; printf '\\251\\n'"));
    const lines: string[] = [];
    for await (const line of split.lines()) lines.push(line);
    assert.deepEqual(lines, ["é"]);
    await split.gone;
  });

  await t.step("stdout is also there as bytes, for a peer that reads them itself", async () => {
    const { supervisor: s } = await supervisor();
    const echo = await s.spawn("tests", sh(`printf '{"a":1}\\n'`));
    const bytes = new Uint8Array(await new Response(echo.stdout).arrayBuffer());
    assert.equal(new TextDecoder().decode(bytes), '{"a":1}\n');
    await echo.gone;
  });

  await t.step("stderr is kept as a bounded tail, its end whole, and streamed", async () => {
    const { supervisor: s } = await supervisor({
      limits: { ...PROCESS_LIMITS, stderrTailBytes: 1024 },
    });
    let streamed = "";
    const noisy = await s.spawn("tests", {
      ...sh(
        'i=0; while [ $i -lt 300 ]; do echo "line $i of what went wrong" >&2; i=$((i+1)); done; exit 3',
      ),
      onStderr: (text) => streamed += text,
    });
    await noisy.stdout.cancel();
    assert.deepEqual(await noisy.gone, { code: 3, signal: null });
    const tail = noisy.stderrTail();
    const [mark, ...rest] = tail.split("\n");
    assert.match(mark, /^\[\d+ earlier bytes not kept\]$/);
    assert.equal(new TextEncoder().encode(rest.join("\n")).length, 1024);
    assert.ok(tail.endsWith("line 299 of what went wrong\n"), tail);
    assert.equal(streamed.split("\n").length, 301);
    assert.ok(streamed.endsWith(rest.join("\n")));
  });

  await t.step("a listener of stderr that throws does not stop the process's end", async () => {
    const { supervisor: s } = await supervisor();
    const failing = await s.spawn("tests", {
      ...sh("echo one >&2; echo two >&2"),
      onStderr: () => {
        throw new Error("listener failed");
      },
    });
    await failing.stdout.cancel();
    await failing.gone;
    assert.equal(failing.stderrTail(), "one\ntwo\n");
  });
});

Deno.test("`SupervisedProcess.stop()` stops the whole group", async (t) => {
  await t.step("a program that ignores SIGTERM, with a child, is killed with it", async () => {
    const { supervisor: s } = await supervisor();
    // An ignored SIGTERM is inherited: the sleep in the background ignores it too.
    const stubborn = await s.spawn("tests", sh("trap '' TERM; sleep 1000 & echo $!; wait"));
    const lines = stubborn.lines();
    const grandchild = Number((await lines.next()).value);
    assert.ok(await isAlive(grandchild));
    const exit = await stubborn.stop();
    assert.equal(exit.signal, "SIGKILL");
    assert.ok(await allGone([stubborn.pid, grandchild]), "the program or its child is still alive");
    await lines.return(undefined);
  });

  await t.step("what a program that exits leaves in its group is stopped", async () => {
    const { supervisor: s } = await supervisor();
    const leaving = await s.spawn("tests", sh("sleep 1000 & echo $!"));
    // The child holds stdout too: it ends only when the child has gone.
    const lines = leaving.lines();
    const grandchild = Number((await lines.next()).value);
    assert.deepEqual(await leaving.gone, { code: 0, signal: null });
    assert.ok(await allGone([grandchild]), "the program's child is still alive");
    await lines.return(undefined);
  });

  await t.step("a program that closes its output but keeps running is not stopped", async () => {
    const { supervisor: s } = await supervisor();
    const quiet = await s.spawn("tests", sh("exec >&- 2>&-; sleep 1000"));
    assert.equal(await readAll(quiet.text()), "");
    await new Promise((resolve) => setTimeout(resolve, 500));
    assert.ok(quiet.running);
    assert.ok(await isAlive(quiet.pid));
    assert.equal((await quiet.stop()).signal, "SIGTERM");
    assert.ok(await allGone([quiet.pid]));
  });
});

Deno.test("`Supervisor.stopAll()` and `killAllNow()` leave no process", async (t) => {
  await t.step("stopAll stops every group and removes the record", async () => {
    const { supervisor: s } = await supervisor();
    const started = await Promise.all(
      ["a", "a", "b"].map((owner) =>
        s.spawn(owner, sh("trap '' TERM; sleep 1000 & echo $!; wait"))
      ),
    );
    const children = await Promise.all(
      started.map(async (p) => Number((await p.lines().next()).value)),
    );
    await s.stopAll();
    assert.deepEqual(s.running(), []);
    assert.ok(await allGone([...started.map((p) => p.pid), ...children]));
    await assert.rejects(Deno.stat(s.recordFile), Deno.errors.NotFound);
  });

  await t.step("stopOwner stops only that owner's", async () => {
    const { supervisor: s } = await supervisor();
    const mine = await s.spawn("mine", { command: "sleep", args: ["1000"] });
    const theirs = await s.spawn("theirs", { command: "sleep", args: ["1000"] });
    await Promise.all([mine.stdout.cancel(), theirs.stdout.cancel()]);
    await s.stopOwner("mine");
    assert.deepEqual(s.running(), [theirs]);
    assert.ok(await isAlive(theirs.pid));
    await s.stopAll();
  });

  await t.step("killAllNow kills every group at once and refuses later starts", async () => {
    const { supervisor: s } = await supervisor();
    const started = await Promise.all(
      [1, 2].map(() => s.spawn("tests", sh("trap '' TERM; sleep 1000"))),
    );
    await Promise.all(started.map((p) => p.stdout.cancel()));
    s.killAllNow();
    await assert.rejects(Deno.stat(s.recordFile), Deno.errors.NotFound);
    for (const p of started) assert.equal((await p.gone).signal, "SIGKILL");
    await rejectsWith(
      s.spawn("tests", { command: "sleep", args: ["1"] }),
      ProcessStartError,
      "Cannot start sleep: Sync is stopping",
    );
  });

  await t.step("close stops every group and refuses later starts", async () => {
    const { supervisor: s } = await supervisor();
    const sleeper = await s.spawn("tests", { command: "sleep", args: ["1000"] });
    await sleeper.stdout.cancel();
    await s.close();
    assert.ok(await allGone([sleeper.pid]));
    await rejectsWith(
      s.spawn("tests", { command: "sleep", args: ["1"] }),
      ProcessStartError,
      "Cannot start sleep: Sync is stopping",
    );
  });
});

Deno.test("`Supervisor.spawn()` gives a scrubbed environment and a ready folder", async (t) => {
  await t.step(
    "SYNC_* variables and any holding a secret are removed; env adds and removes",
    async () => {
      const { supervisor: s } = await supervisor({
        secrets: ["token-1234"],
        environment: () => ({
          PATH: Deno.env.get("PATH")!,
          SYNC_HOME: "/somewhere",
          SYNC_PORT: "4321",
          COPIED_TOKEN: "token-1234",
          KEPT: "kept",
          DROPPED: "dropped",
        }),
      });
      const env = await s.spawn("tests", {
        command: "env",
        env: { ADDED: "added", DROPPED: null, KEPT: "changed" },
      });
      const lines = (await Array.fromAsync(env.lines())).sort();
      await env.gone;
      assert.deepEqual(lines, ["ADDED=added", "KEPT=changed", `PATH=${Deno.env.get("PATH")}`]);
    },
  );

  await t.step("by default the environment is Sync's own, scrubbed", async () => {
    const { supervisor: s } = await supervisor({ secrets: ["secret-value-5678"] });
    Deno.env.set("SYNC_SUPERVISOR_TEST", "1");
    Deno.env.set("SUPERVISOR_TEST_COPY", "secret-value-5678");
    Deno.env.set("SUPERVISOR_TEST_KEPT", "kept");
    try {
      const env = await s.spawn("tests", { command: "env" });
      const text = await readAll(env.text());
      await env.gone;
      assert.match(text, /^SUPERVISOR_TEST_KEPT=kept$/m);
      assert.doesNotMatch(text, /SYNC_SUPERVISOR_TEST|secret-value-5678/);
    } finally {
      Deno.env.delete("SYNC_SUPERVISOR_TEST");
      Deno.env.delete("SUPERVISOR_TEST_COPY");
      Deno.env.delete("SUPERVISOR_TEST_KEPT");
    }
  });

  await t.step("~/ in cwd is the home folder, and a missing folder is created", async () => {
    const home = await tempFolder("sync-home-");
    const { supervisor: s } = await supervisor({
      environment: () => ({ PATH: Deno.env.get("PATH")!, HOME: home }),
    });
    const pwd = await s.spawn("tests", { command: "pwd", cwd: "~/work/scratch" });
    assert.equal(await readAll(pwd.text()), `${join(home, "work", "scratch")}\n`);
    await pwd.gone;
    const tilde = await s.spawn("tests", { command: "pwd", cwd: "~" });
    assert.equal(await readAll(tilde.text()), `${home}\n`);
    await tilde.gone;
  });
});

Deno.test("`Supervisor.spawn()` finds its program on Sync's own PATH", async (t) => {
  /** A folder holding a `tail` and an `sh` that only say they are fake. */
  async function fakeBin(folder: string): Promise<void> {
    await Deno.mkdir(folder, { recursive: true });
    for (const name of ["tail", "sh"]) {
      await Deno.writeTextFile(join(folder, name), "#!/bin/sh\necho fake\n", { mode: 0o755 });
    }
  }

  await t.step("a PATH in env reaches the process but does not choose its program", async () => {
    const { supervisor: s, root } = await supervisor();
    const fake = join(root, "fakebin");
    await fakeBin(fake);
    await Deno.writeTextFile(join(root, "log"), "first\nlast\n");
    const tail = await s.spawn("tests", {
      command: "tail",
      args: ["-n", "1", join(root, "log")],
      env: { PATH: fake },
    });
    assert.equal(await readAll(tail.text()), "last\n", "the real tail ran");
    await tail.gone;
    const path = await s.spawn("tests", { ...sh('echo "$PATH"'), env: { PATH: fake } });
    assert.equal(await readAll(path.text()), `${fake}\n`, "the real sh, given the PATH asked for");
    await path.gone;
  });

  await t.step("a relative folder of PATH is not taken from the process's folder", async () => {
    const { supervisor: s, root } = await supervisor({
      environment: () => ({ PATH: `fakebin:${Deno.env.get("PATH")}` }),
    });
    await fakeBin(join(root, "fakebin"));
    await Deno.writeTextFile(join(root, "log"), "first\nlast\n");
    const tail = await s.spawn("tests", { command: "tail", args: ["-n", "1", "log"], cwd: root });
    assert.equal(await readAll(tail.text()), "last\n", "the real tail ran");
    await tail.gone;
    const { supervisor: only } = await supervisor({ environment: () => ({ PATH: "fakebin" }) });
    await rejectsWith(
      only.spawn("tests", { command: "tail", cwd: root }),
      ProcessStartError,
      "Cannot start tail: no such program on PATH (empty; its relative folders are not " +
        "looked in). Install tail, or add the folder it is in to PATH, or give its full path " +
        "in the command",
    );
  });
});

Deno.test("`Supervisor.spawn()` refuses what it cannot start", async (t) => {
  await t.step("a missing program, naming it and what to do", async () => {
    const { supervisor: s } = await supervisor({
      environment: () => ({ PATH: "/nowhere:/usr/bin" }),
    });
    await rejectsWith(
      s.spawn("codex", { command: "codex-acp-not-installed" }),
      ProcessStartError,
      "Cannot start codex-acp-not-installed: no such program on PATH (/nowhere:/usr/bin). " +
        "Install codex-acp-not-installed, or add the folder it is in to PATH, or give its full path in the command",
    );
    await rejectsWith(
      s.spawn("codex", { command: "/nowhere/agent" }),
      ProcessStartError,
      "Cannot start /nowhere/agent: there is no file /nowhere/agent. Check the command",
    );
    assert.deepEqual(s.running(), []);
  });

  await t.step("a file that is not executable", async () => {
    const { supervisor: s, root } = await supervisor();
    await Deno.writeTextFile(join(root, "agent.sh"), "echo hi\n");
    await rejectsWith(
      s.spawn("tests", { command: "./agent.sh", cwd: root }),
      ProcessStartError,
      `Cannot start ./agent.sh: ${join(root, "agent.sh")} is not an executable file. ` +
        "Check the command, or make it executable (chmod +x)",
    );
  });

  await t.step("anything, when ps is not on PATH, saying what to install", async () => {
    const { root, recordFolder } = await supervisor();
    const bin = join(root, "bin");
    await Deno.mkdir(bin);
    await Deno.symlink("/bin/sleep", join(bin, "sleep"));
    const script = join(root, "start.ts");
    await Deno.writeTextFile(
      script,
      `import { Supervisor } from ${JSON.stringify(SUPERVISOR_MODULE)};
const supervisor = new Supervisor({ recordFolder: ${JSON.stringify(recordFolder)} });
try {
  await supervisor.spawn("tests", { command: "sleep", args: ["1000"] });
  console.log("started");
} catch (error) {
  console.log(error.name + ": " + error.message);
}`,
    );
    const output = await new Deno.Command(Deno.execPath(), {
      args: ["run", "--allow-read", "--allow-write", "--allow-run", "--allow-env", script],
      cwd: root,
      env: { PATH: bin },
      clearEnv: true,
      stdin: "null",
    }).output();
    assert.equal(
      new TextDecoder().decode(output.stdout),
      "ProcessStartError: Cannot look after the processes Sync starts: the program ps is not " +
        "on PATH. Install it (on Debian and Ubuntu: apt-get install procps)\n",
      new TextDecoder().decode(output.stderr),
    );
    await assert.rejects(Deno.stat(recordFolder), Deno.errors.NotFound);
  });

  await t.step("more processes than one owner, or Sync in all, may run", async () => {
    const { supervisor: s } = await supervisor({
      limits: { ...PROCESS_LIMITS, maxPerOwner: 2, maxRunning: 3 },
    });
    const sleep = { command: "sleep", args: ["1000"] };
    // Started together, so that the ones still starting count too.
    await Promise.all([s.spawn("a", sleep), s.spawn("a", sleep)]);
    await rejectsWith(
      s.spawn("a", sleep),
      ProcessLimitError,
      "Cannot start sleep for a: it already runs 2 processes, the most one owner may (2). " +
        "Stop one of them first",
    );
    await s.spawn("b", sleep);
    await rejectsWith(
      s.spawn("c", sleep),
      ProcessLimitError,
      "Cannot start sleep for c: Sync already runs 3 processes, the most at once (3). " +
        "Stop one, or wait for one to end",
    );
    await Promise.all(s.running().map((p) => p.stdout.cancel()));
    await s.stopAll();
    await s.spawn("c", sleep).then((p) => p.stdout.cancel());
    await s.stopAll();
  });
});
