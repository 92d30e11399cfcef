import assert from "node:assert/strict";
import { join } from "node:path";
import { runCli } from "../../../runtime/cli/sync.ts";
import { REPO_ROOT, SYNC_RUN_ARGS } from "../../internal/cli.ts";
import { appletEnv } from "../../internal/applets.ts";

const SERVICE = `export default function register() {
  return { "mail.sync": () => ({ coverage: { read: 12, of: null, failed: 0 } }) };
}`;

Deno.test("`sync devices` changes devices in the owner, the credential beside the words", async (t) => {
  const applet = await appletEnv({ service: SERVICE, account: "remote" });
  const { env, runner } = applet;
  const out: string[] = [];
  const err: string[] = [];
  // As the serve runs a command the CLI sent it: its host, its runner, the secret carried.
  const sync = (args: string[], secret?: string) => {
    out.length = 0;
    err.length = 0;
    return runCli(["devices", ...args, "--project", env.project], {
      io: { out: (line) => out.push(line), err: (line) => err.push(line) },
      cwd: env.project,
      served: env.host,
      tasks: runner,
      secret,
    });
  };
  try {
    await t.step("list says how to connect a device that has no account", async () => {
      assert.equal(await sync(["list"]), 0, err.join("\n"));
      assert.match(
        out.join("\n"),
        / {2}to connect it \(Your Maildir\): sync devices connect mail --origin <https:\/\/host> --project /,
      );
    });

    await t.step("connect --origin takes the credential given, and never shows it", async () => {
      const code = await sync(
        ["connect", "mail", "--origin", "https://mail.example"],
        "tok-9f2e",
      );
      assert.equal(code, 0, err.join("\n"));
      assert.deepEqual(out, [
        "Connected mail's account: https://mail.example",
        `It reads it now, then by itself; sync devices --project ${env.project} shows how the read went`,
      ]);
      const stored = await env.kv.get<{ credential: string }>([
        "account_credential",
        env.project,
        "mail",
      ]);
      assert.equal(stored.value?.credential, "tok-9f2e");
    });

    await t.step("a credential given as a word is refused as bad usage", async () => {
      const code = await sync([
        "connect",
        "mail",
        "--origin",
        "https://x.example",
        "--credential",
        "t",
      ]);
      assert.equal(code, 2);
      assert.match(
        err.join("\n"),
        /--credential is not taken: .* type it at the prompt, or pipe it on stdin/,
      );
    });

    await t.step("connect needs one of --folder and --origin", async () => {
      assert.equal(await sync(["connect", "mail"]), 2);
      assert.match(err.join("\n"), /--folder <dir> or --origin <https:\/\/host>, one of them/);
    });

    await t.step("run says how the attempt ended, with its coverage", async () => {
      assert.equal(await sync(["run", "mail"]), 0, err.join("\n"));
      assert.deepEqual(out, ["mail sync: ok (read 12 items; total unknown)"]);
    });

    await t.step("list shows the device; --json never holds the credential", async () => {
      assert.equal(await sync(["list"]), 0);
      assert.match(out.join("\n"), /^mail {2}Mail {2}ready {2}https:\/\/mail\.example/);
      assert.match(out.join("\n"), /read 12 items; total unknown/);
      assert.equal(await sync(["list", "--json"]), 0);
      const devices = JSON.parse(out.join("\n"));
      assert.equal(devices[0].state, "ready");
      assert.ok(!out.join("\n").includes("tok-9f2e"));
    });

    await t.step("pause, consent and disconnect", async () => {
      assert.equal(await sync(["pause", "mail"]), 0);
      assert.equal((await runner.view(env.project, "mail")).state, "paused");
      assert.equal(await sync(["run", "mail"]), 1);
      assert.match(err.join("\n"), /paused; resume it first/);
      assert.equal(await sync(["resume", "mail"]), 0);
      assert.equal(await sync(["consent", "mail", "--endpoint", "local llama"]), 0);
      assert.equal((await runner.view(env.project, "mail")).consent?.endpoint, "local llama");
      assert.equal(await sync(["consent", "mail", "--revoke"]), 0);
      assert.equal(await sync(["review", "mail"]), 0);
      assert.deepEqual(out, ["mail has no failed run to review"]);
      assert.equal(await sync(["connect", "mail", "--origin", "https://other.example"], "t2"), 0);
      assert.equal(
        out[0],
        "Connected mail's account: https://other.example (in place of https://mail.example)",
      );
      assert.equal(await sync(["disconnect", "mail"]), 0);
      assert.deepEqual(out, [
        "Disconnected mail's account https://other.example; its credential is forgotten; " +
        "what it read stays in the project's records",
      ]);
      assert.equal(await sync(["disconnect", "mail"]), 0);
      assert.deepEqual(out, ["mail had no account connected"]);
    });
  } finally {
    await applet.close();
  }
});

Deno.test("`sync devices` says what comes next for a folder, without a serve's runner", async (t) => {
  const applet = await appletEnv({ service: SERVICE });
  const { env } = applet;
  const out: string[] = [];
  const err: string[] = [];
  // The serve's host without its runner: the command's own runner is not started.
  const sync = (args: string[]) => {
    out.length = 0;
    err.length = 0;
    return runCli(["devices", ...args, "--project", env.project], {
      io: { out: (line) => out.push(line), err: (line) => err.push(line) },
      cwd: env.project,
      served: env.host,
    });
  };
  try {
    await t.step("connect says it reads only while serve runs, and how to read now", async () => {
      assert.equal(await sync(["connect", "mail", "--folder", applet.folder]), 0, err.join("\n"));
      assert.deepEqual(out, [
        `Connected mail's account: ${applet.folder}`,
        `It reads by itself while sync serve runs; to read it now: ` +
        `sync devices run mail --project ${env.project}`,
      ]);
    });

    await t.step("reset and disconnect name what stays; a folder has no credential", async () => {
      assert.equal(await sync(["reset", "mail"]), 0, err.join("\n"));
      assert.deepEqual(out, ["Reset mail: 0 records it read removed; its account stays"]);
      assert.equal(await sync(["disconnect", "mail"]), 0, err.join("\n"));
      assert.deepEqual(out, [
        `Disconnected mail's account ${applet.folder}; what it read stays in the project's records`,
      ]);
    });
  } finally {
    await applet.close();
  }
});

Deno.test("`sync devices` refuses a website's pause, reset and run, and a package not installed", async (t) => {
  const applet = await appletEnv({ service: SERVICE, modes: ["website"] });
  const { env } = applet;
  const out: string[] = [];
  const err: string[] = [];
  const sync = (args: string[]) => {
    out.length = 0;
    err.length = 0;
    return runCli(["devices", ...args, "--project", env.project], {
      io: { out: (line) => out.push(line), err: (line) => err.push(line) },
      cwd: env.project,
      served: env.host,
    });
  };
  try {
    for (const action of ["pause", "reset", "run"]) {
      await t.step(`${action}: a website reads nothing; open its link`, async () => {
        assert.equal(await sync([action, "mail"]), 1);
        assert.deepEqual(err, [
          `sync devices: Cannot ${action} mail: Mail is a website and reads nothing; ` +
          `open https://mail.example instead`,
        ]);
      });
    }
    await t.step(
      "a package not installed is named so, with the command that lists them",
      async () => {
        assert.equal(await sync(["pause", "nosuch"]), 1);
        assert.deepEqual(err, [
          `sync devices: nosuch is not installed in ${env.project}; ` +
          `sync list --project ${env.project} shows what is`,
        ]);
      },
    );
  } finally {
    await applet.close();
  }
});

Deno.test("`readSecret()` reads the first line of a piped stdin", async () => {
  const root = await Deno.makeTempDir({ prefix: "sync-test-" });
  try {
    const script = join(root, "read.ts");
    await Deno.writeTextFile(
      script,
      `import { readSecret } from ${
        JSON.stringify(new URL("runtime/cli/read_secret.ts", REPO_ROOT).href)
      };
console.log(JSON.stringify(await readSecret("Credential: ")));`,
    );
    const child = new Deno.Command(Deno.execPath(), {
      args: ["run", "--allow-read", script],
      cwd: REPO_ROOT,
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const writer = child.stdin.getWriter();
    await writer.write(new TextEncoder().encode("tok en\nsecond line\n"));
    await writer.close();
    const { code, stdout, stderr } = await child.output();
    assert.equal(code, 0, new TextDecoder().decode(stderr));
    assert.equal(new TextDecoder().decode(stdout).trim(), JSON.stringify("tok en"));
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("`sync devices connect --origin` reads the credential from stdin where it is typed", async () => {
  const root = await Deno.makeTempDir({ prefix: "sync-test-" });
  try {
    const project = join(root, "project");
    await Deno.mkdir(project);
    const child = new Deno.Command(Deno.execPath(), {
      args: [
        ...SYNC_RUN_ARGS,
        "devices",
        "connect",
        "mail",
        "--origin",
        "https://mail.example",
        "--project",
        project,
      ],
      cwd: REPO_ROOT,
      env: { SYNC_HOME: join(root, "home"), NO_COLOR: "1" },
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const writer = child.stdin.getWriter();
    await writer.write(new TextEncoder().encode("tok-piped-31\n"));
    await writer.close();
    const { code, stdout, stderr } = await child.output();
    const said = new TextDecoder().decode(stdout) + new TextDecoder().decode(stderr);
    // Read, carried to the owner, and refused there: nothing named mail is installed.
    assert.equal(code, 1, said);
    assert.match(said, /mail is not installed in .*; sync list --project .* shows what is/);
    assert.ok(!said.includes("tok-piped-31"), "the credential is never said back");
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
