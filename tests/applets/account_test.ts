import assert from "node:assert/strict";
import { join } from "node:path";
import { readAccount, readConsent } from "../../runtime/applets/mod.ts";
import { listReceipts } from "../../runtime/host/receipts.ts";
import { getRecord, writeRecord } from "../../runtime/memory/mod.ts";
import { type AppletEnv, appletEnv } from "../internal/applets.ts";
import { until } from "../internal/until.ts";

const WRITES = `import { memory } from "@sync/extension-api/service";
export default function register() {
  return {
    "mail.sync": async () => {
      await memory.write({ key: "mail.message/1", title: "m" });
      return { coverage: { read: 1, of: 1, failed: 0 } };
    },
  };
}`;

/** Writes a record, then spins 3 s: long enough to be fenced while it runs. */
const SLOW = `import { memory } from "@sync/extension-api/service";
export default function register() {
  return {
    "mail.sync": async () => {
      await memory.write({ key: "mail.message/slow", title: "half-written" });
      const end = Date.now() + 3000;
      while (Date.now() < end) {}
      return { coverage: { read: 1, of: 1, failed: 0 } };
    },
  };
}`;

/** Any stored value as text, bytes decoded, so a search of it finds what it holds. */
function text(value: unknown): string {
  return JSON.stringify(
    value ?? null,
    (_, v) =>
      typeof v === "bigint"
        ? String(v)
        : v instanceof Uint8Array
        ? new TextDecoder().decode(v)
        : v instanceof Deno.KvU64
        ? String(v.value)
        : v,
  );
}

async function epoch(applet: AppletEnv): Promise<number> {
  const memory = await applet.env.host.projectMemory(applet.env.project);
  return (await memory.get<number>(["account_epoch", "mail"])).value ?? 0;
}

Deno.test("installing, connecting and allowing processing are three separate decisions", async () => {
  const applet = await appletEnv({ service: WRITES });
  const { runner, env } = applet;
  try {
    let shown = await runner.view(env.project, "mail");
    assert.equal(shown.state, "disconnected", "installing never connects");
    assert.equal(shown.consent, null, "installing never consents");
    await runner.connect(env.project, "mail", { kind: "folder", folder: applet.folder });
    shown = await runner.view(env.project, "mail");
    assert.equal(shown.account?.kind, "folder");
    assert.equal(shown.consent, null, "connecting never consents");
    await runner.grantConsent(env.project, "mail", "http://127.0.0.1:11434 (llama)");
    assert.equal(
      (await readConsent(env.kv, env.project, "mail"))?.endpoint,
      "http://127.0.0.1:11434 (llama)",
    );
    await runner.disconnect(env.project, "mail");
    assert.notEqual(
      await readConsent(env.kv, env.project, "mail"),
      null,
      "disconnecting keeps consent",
    );
    assert.equal(await runner.revokeConsent(env.project, "mail"), true);
    assert.equal(await readConsent(env.kv, env.project, "mail"), null);
  } finally {
    await applet.close();
  }
});

Deno.test("`TaskRunner.connect()` takes only a real folder or a safe origin", async (t) => {
  const folderApplet = await appletEnv({ service: WRITES });
  const remoteApplet = await appletEnv({ service: WRITES, account: "remote" });
  const connect = (applet: AppletEnv, input: unknown) =>
    applet.runner.connect(applet.env.project, "mail", input as never);
  try {
    await t.step("a folder: absolute, there, a folder, its links followed", async () => {
      await assert.rejects(
        connect(folderApplet, { kind: "folder", folder: "rel/x" }),
        /not an absolute path/,
      );
      const gone = join(folderApplet.folder, "gone");
      await assert.rejects(
        connect(folderApplet, { kind: "folder", folder: gone }),
        /does not exist; pick a folder/,
      );
      const file = join(folderApplet.folder, "file.txt");
      await Deno.writeTextFile(file, "x");
      await assert.rejects(
        connect(folderApplet, { kind: "folder", folder: file }),
        /is not a folder; pick a folder/,
      );
      await Deno.mkdir(join(folderApplet.folder, "real"));
      await Deno.symlink(join(folderApplet.folder, "real"), join(folderApplet.folder, "link"));
      const account = await connect(folderApplet, {
        kind: "folder",
        folder: join(folderApplet.folder, "link"),
      });
      assert.deepEqual(
        account.kind === "folder" && account.folder,
        join(folderApplet.folder, "real"),
      );
    });
    await t.step("the device's kind of account only", async () => {
      await assert.rejects(
        connect(folderApplet, { kind: "remote", origin: "https://x.example", credential: "c" }),
        /reads a folder account — Your Maildir — not a remote one; give a folder$/,
      );
    });
    await t.step("a remote origin: https, or http to this machine only; no path", async () => {
      const remote = (origin: string, credential = "token") =>
        connect(remoteApplet, { kind: "remote", origin, credential });
      await assert.rejects(remote("http://mail.example"), /not https/);
      await assert.rejects(remote("https://mail.example/inbox"), /more than scheme, host and port/);
      await assert.rejects(remote("mail.example"), /is not an origin/);
      await assert.rejects(remote("https://mail.example", ""), /needs its credential/);
      const loopback = await remote("http://127.0.0.1:8080");
      assert.equal(loopback.kind === "remote" && loopback.origin, "http://127.0.0.1:8080");
      const account = await remote("https://mail.example:8443/");
      assert.equal(account.kind === "remote" && account.origin, "https://mail.example:8443");
    });
    await t.step("each change of account is a new id and moves the epoch on", async () => {
      const before = await epoch(folderApplet);
      const first = await connect(folderApplet, { kind: "folder", folder: folderApplet.folder });
      const second = await connect(folderApplet, { kind: "folder", folder: folderApplet.folder });
      assert.notEqual(first.id, second.id);
      assert.equal(await epoch(folderApplet), before + 2);
      await folderApplet.runner.disconnect(folderApplet.env.project, "mail");
      assert.equal(await epoch(folderApplet), before + 3);
      assert.equal(await readAccount(folderApplet.env.kv, folderApplet.env.project, "mail"), null);
    });
  } finally {
    await folderApplet.close();
    await remoteApplet.close();
  }
});

Deno.test("the credential is never in any answer, log, receipt or attempt", async () => {
  const secret = "s3cret-credential-7f1c";
  const applet = await appletEnv({
    account: "remote",
    service: `export default function register() {
  return {
    "mail.sync": (payload, occasion) => {
      console.log("payload", JSON.stringify(payload), "occasion", JSON.stringify(occasion));
      return { coverage: { read: 0, of: null, failed: 0 } };
    },
  };
}`,
  });
  const { runner, env } = applet;
  try {
    const account = await runner.connect(env.project, "mail", {
      kind: "remote",
      origin: "https://mail.example",
      credential: secret,
    });
    const attempt = await runner.runTask(env.project, "mail", "sync");
    assert.equal(attempt.outcome, "ok");
    const said = JSON.stringify([
      account,
      attempt,
      await runner.view(env.project, "mail"),
      await runner.list(env.project),
      await listReceipts(env.kv, env.project, { packageId: "mail" }),
      env.logs,
    ]);
    assert.ok(said.includes("mail.example"), "the origin is shown");
    assert.ok(!said.includes(secret), "the credential is not");
    // In the installation, it is under its own key only; never in the project.
    const holders: unknown[] = [];
    for await (const entry of env.kv.list({ prefix: [] })) {
      if (text(entry.value).includes(secret)) holders.push(entry.key);
    }
    assert.deepEqual(holders, [["account_credential", env.project, "mail"]]);
    const memory = await env.host.projectMemory(env.project);
    for await (const entry of memory.list({ prefix: [] })) {
      assert.ok(!text(entry.value).includes(secret));
    }
    await runner.disconnect(env.project, "mail");
    assert.equal((await env.kv.get(["account_credential", env.project, "mail"])).value, null);
  } finally {
    await applet.close();
  }
});

Deno.test("connect, disconnect and reset fence a run going: the old run commits nothing", async (t) => {
  for (const change of ["disconnect", "reset", "connect"] as const) {
    await t.step(change, async () => {
      const applet = await appletEnv({ service: SLOW });
      const { runner, env } = applet;
      try {
        await runner.connect(env.project, "mail", { kind: "folder", folder: applet.folder });
        const running = runner.runTask(env.project, "mail", "sync");
        await until(
          "the run to be going",
          async () => (await runner.view(env.project, "mail")).state === "processing",
        );
        if (change === "disconnect") await runner.disconnect(env.project, "mail");
        if (change === "reset") await runner.reset(env.project, "mail");
        if (change === "connect") {
          await runner.connect(env.project, "mail", { kind: "folder", folder: applet.folder });
        }
        const attempt = await running;
        assert.equal(attempt.outcome, "fenced");
        assert.match(
          attempt.error!,
          /account changed while this run was going; nothing of it was kept/,
        );
        const memory = await env.host.projectMemory(env.project);
        assert.equal(await getRecord(memory, "mail.message/slow"), null, "its write was not kept");
        const shown = await runner.view(env.project, "mail");
        assert.equal(shown.lastRead, null, "its coverage was not kept");
        assert.notEqual(shown.lamp, "red", "an obsolete run is nobody's failure");
      } finally {
        await applet.close();
      }
    });
  }
});

Deno.test("`TaskRunner.reset()` drops what the device read and its tasks, keeping its account", async () => {
  const applet = await appletEnv({ service: WRITES });
  const { runner, env } = applet;
  try {
    await runner.connect(env.project, "mail", { kind: "folder", folder: applet.folder });
    await runner.runTask(env.project, "mail", "sync");
    const memory = await env.host.projectMemory(env.project);
    // Another package's record, and one whose kind only begins like mail's.
    await writeRecord(memory, { key: "mailer.note/1", title: "not mail's" });
    const before = await epoch(applet);
    const result = await runner.reset(env.project, "mail");
    assert.equal(result.records, 1);
    assert.equal(await getRecord(memory, "mail.message/1"), null);
    assert.notEqual(await getRecord(memory, "mailer.note/1"), null);
    assert.equal(await epoch(applet), before + 1);
    const shown = await runner.view(env.project, "mail");
    assert.equal(shown.account?.kind, "folder", "the account stays");
    assert.equal(shown.lastRead, null);
    assert.deepEqual(shown.tasks[0].attempts, []);
  } finally {
    await applet.close();
  }
});

Deno.test("a killed run commits nothing half-written", async (t) => {
  await t.step("a step stopped where it was keeps none of its writes", async () => {
    const applet = await appletEnv({
      service: `import { memory } from "@sync/extension-api/service";
export default function register() {
  return {
    "mail.sync": async () => {
      await memory.write({ key: "mail.message/half", title: "half" });
      while (true) {}
    },
  };
}`,
      host: { limits: { timeoutMs: 300 } },
    });
    try {
      await applet.runner.connect(applet.env.project, "mail", {
        kind: "folder",
        folder: applet.folder,
      });
      const attempt = await applet.runner.runTask(applet.env.project, "mail", "sync");
      assert.equal(attempt.outcome, "transient");
      const memory = await applet.env.host.projectMemory(applet.env.project);
      assert.equal(await getRecord(memory, "mail.message/half"), null);
    } finally {
      await applet.close();
    }
  });

  await t.step("an attempt a killed process left is ended cancelled at start", async () => {
    const applet = await appletEnv({ service: WRITES });
    const { env, runner } = applet;
    try {
      const key = ["task_attempt", env.project, "mail", "sync", "0000000001-0000-left"];
      await env.kv.set(key, {
        id: "0000000001-0000-left",
        task: "sync",
        accountId: "a",
        startedAt: 1,
        trigger: "schedule",
        try: 1,
        receipts: [],
      });
      await runner.start();
      const left = (await env.kv.get<{ outcome?: string; error?: string }>(key)).value!;
      assert.equal(left.outcome, "cancelled");
      assert.match(left.error!, /Sync stopped while this run was going/);
    } finally {
      await applet.close();
    }
  });
});

Deno.test("a website device reads nothing and runs nothing", async () => {
  const applet = await appletEnv({ service: WRITES, modes: ["website"] });
  const { runner, env } = applet;
  try {
    const shown = await runner.view(env.project, "mail");
    assert.equal(shown.url, "https://mail.example");
    assert.deepEqual(shown.tasks, []);
    assert.equal(shown.accepts, null);
    await assert.rejects(
      runner.connect(env.project, "mail", { kind: "folder", folder: applet.folder }),
      /is a website and reads no account/,
    );
    await assert.rejects(runner.runTask(env.project, "mail", "sync"), /has no task "sync"/);
    for (const action of ["pause", "reset"] as const) {
      await assert.rejects(
        () => runner[action](env.project, "mail"),
        /^ConflictError: Cannot (pause|reset) mail: Mail is a website and reads nothing; open https:\/\/mail\.example instead$/,
      );
    }
    assert.equal((await runner.view(env.project, "mail")).state, "ready");
  } finally {
    await applet.close();
  }
});

Deno.test("an on-demand-only device runs when asked, never by itself", async () => {
  const applet = await appletEnv({ service: WRITES, modes: ["on-demand"] });
  const { runner, env, timers } = applet;
  try {
    await runner.connect(env.project, "mail", { kind: "folder", folder: applet.folder });
    timers.time += 24 * 60 * 60_000;
    await runner.tick();
    assert.deepEqual((await runner.view(env.project, "mail")).tasks[0].attempts, []);
    const attempt = await runner.runTask(env.project, "mail", "sync", { trigger: "agent" });
    assert.equal(attempt.trigger, "agent");
    assert.equal(attempt.outcome, "ok");
  } finally {
    await applet.close();
  }
});

Deno.test("pausing or stopping calls off a run going: it ends cancelled and keeps nothing", async (t) => {
  for (const how of ["pause", "stop"] as const) {
    await t.step(how, async () => {
      const applet = await appletEnv({ service: SLOW });
      const { runner, env } = applet;
      try {
        await runner.connect(env.project, "mail", { kind: "folder", folder: applet.folder });
        const running = runner.runTask(env.project, "mail", "sync");
        await until(
          "the run to be going",
          async () => (await runner.view(env.project, "mail")).state === "processing",
        );
        if (how === "pause") await runner.pause(env.project, "mail");
        else await runner.stop();
        const attempt = await running;
        assert.equal(attempt.outcome, "cancelled");
        const memory = await env.host.projectMemory(env.project);
        assert.equal(await getRecord(memory, "mail.message/slow"), null);
        assert.equal((await runner.view(env.project, "mail")).lastRead, null);
      } finally {
        await applet.close();
      }
    });
  }
});
