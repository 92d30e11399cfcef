import assert from "node:assert/strict";
import { describeCoverage, listAttempts, readTaskRecord } from "../../runtime/applets/mod.ts";
import { getRecord } from "../../runtime/memory/mod.ts";
import { type AppletEnv, appletEnv } from "../internal/applets.ts";
import { until } from "../internal/until.ts";

const MIN = 60_000;

/** A service whose `mail.sync` runs `body` (with `payload` and `occasion` in scope). */
function service(body: string): string {
  return `import { memory } from "@sync/extension-api/service";
export default function register() {
  return {
    "mail.sync": async (payload, occasion) => {
      ${body}
    },
  };
}`;
}

/** A service whose `mail.sync` throws an Error named `name`. */
function throwing(name: string): string {
  return service(
    `const error = new Error("the source said no (${name})"); error.name = ${
      JSON.stringify(name)
    }; throw error;`,
  );
}

async function attempts(applet: AppletEnv) {
  return await listAttempts(applet.env.kv, applet.env.project, "mail", "sync", 50);
}

async function task(applet: AppletEnv) {
  return (await readTaskRecord(applet.env.kv, applet.env.project, "mail", "sync"))!;
}

async function view(applet: AppletEnv) {
  return await applet.runner.view(applet.env.project, "mail");
}

Deno.test("`TaskRunner` runs scheduled tasks on their interval, with no catch-up after sleep", async () => {
  const applet = await appletEnv({
    service: service(
      `await memory.write({ key: "mail.message/" + occasion.task.attempt, title: "m" });
      return { coverage: { read: 1, of: 1, failed: 0 } };`,
    ),
  });
  const { runner, timers, env } = applet;
  try {
    await runner.connect(env.project, "mail", { kind: "folder", folder: applet.folder });
    await runner.start();
    timers.fireDue();
    await until(
      "the first scheduled run to end and plan the next",
      async () => (await task(applet))?.lastAttempt != null,
    );
    const [first] = await attempts(applet);
    assert.equal(first.trigger, "fresh", "the read right after connecting is the first read");
    assert.equal(first.outcome, "ok");
    assert.equal(first.try, 1);
    assert.equal((await task(applet)).nextRunAt, timers.time + 15 * MIN);

    // Asleep six hours: overdue, it runs once, then waits its interval from then.
    timers.time += 6 * 60 * MIN;
    await runner.tick();
    assert.equal((await attempts(applet)).length, 2);
    assert.deepEqual((await attempts(applet)).map((a) => a.trigger).sort(), ["fresh", "schedule"]);
    await runner.tick();
    assert.equal((await attempts(applet)).length, 2, "no catch-up of the missed runs");
    assert.equal((await task(applet)).nextRunAt, timers.time + 15 * MIN);
    timers.time += 14 * MIN;
    await runner.tick();
    assert.equal((await attempts(applet)).length, 2, "not due before its interval");
    timers.time += MIN;
    await runner.tick();
    assert.equal((await attempts(applet)).length, 3);
  } finally {
    await applet.close();
  }
});

Deno.test("`TaskRunner` retries transient failures within bounds, the lamp as it was", async (t) => {
  const applet = await appletEnv({ service: throwing("TransientError") });
  const { runner, timers, env } = applet;
  try {
    await runner.connect(env.project, "mail", { kind: "folder", folder: applet.folder });
    await t.step("the first try fails transiently and waits 30 s", async () => {
      const attempt = await runner.runTask(env.project, "mail", "sync");
      assert.equal(attempt.outcome, "transient");
      assert.equal(attempt.trigger, "person");
      assert.equal(attempt.try, 1);
      assert.match(attempt.error!, /the source said no/);
      const record = await task(applet);
      assert.equal(record.failuresInRow, 1);
      assert.equal(record.nextRunAt, timers.time + 30_000);
      assert.equal((await view(applet)).lamp, "steady");
    });
    await t.step("each retry is its own attempt, after 30 s, 2 min and 10 min", async () => {
      for (const [wait, tryNumber] of [[30_000, 2], [2 * MIN, 3], [10 * MIN, 4]]) {
        timers.time += wait - 1;
        await runner.tick();
        assert.equal((await attempts(applet)).length, tryNumber - 1, "not before its backoff");
        timers.time += 1;
        await runner.tick();
        const [newest] = await attempts(applet);
        assert.equal(newest.trigger, "retry");
        assert.equal(newest.try, tryNumber);
        assert.equal(newest.outcome, "transient");
      }
    });
    await t.step(
      "then the task waits for its next due run; the lamp never turned red",
      async () => {
        const record = await task(applet);
        assert.equal(record.failuresInRow, 0);
        assert.equal(record.nextRunAt, timers.time + 15 * MIN);
        timers.time += 14 * MIN;
        await runner.tick();
        assert.equal((await attempts(applet)).length, 4);
        const shown = await view(applet);
        assert.equal(shown.lamp, "steady");
        assert.equal(shown.notice, null);
      },
    );
  } finally {
    await applet.close();
  }
});

Deno.test("`TaskRunner` retries a step that timed out", async () => {
  const applet = await appletEnv({
    service: service(`while (true) {}`),
    host: { limits: { timeoutMs: 300 } },
  });
  try {
    await applet.runner.connect(applet.env.project, "mail", {
      kind: "folder",
      folder: applet.folder,
    });
    const attempt = await applet.runner.runTask(applet.env.project, "mail", "sync");
    assert.equal(attempt.outcome, "transient");
    assert.equal((await task(applet)).nextRunAt, applet.timers.time + 30_000);
  } finally {
    await applet.close();
  }
});

Deno.test("`TaskRunner` parks an unknown outcome until a person reviews it, never resubmitting", async () => {
  const applet = await appletEnv({ service: throwing("UnknownOutcomeError") });
  const { runner, timers, env } = applet;
  try {
    await runner.connect(env.project, "mail", { kind: "folder", folder: applet.folder });
    const attempt = await runner.runTask(env.project, "mail", "sync");
    assert.equal(attempt.outcome, "unknown");
    const record = await task(applet);
    assert.equal(record.parkedUntilReview, true);
    assert.equal(record.nextRunAt, null);
    const shown = await view(applet);
    assert.equal(shown.state, "failed");
    assert.equal(shown.lamp, "red");
    assert.equal(shown.notice?.kind, "review-run");
    assert.equal(shown.notice?.action, "review");
    timers.time += 24 * 60 * MIN;
    await runner.tick();
    assert.equal((await attempts(applet)).length, 1, "never resubmitted");
    await assert.rejects(
      runner.runTask(env.project, "mail", "sync"),
      /waits for a person; review it first/,
    );
    await runner.review(env.project, "mail");
    assert.equal((await task(applet)).parkedUntilReview, false);
    assert.equal((await view(applet)).lamp, "steady");
  } finally {
    await applet.close();
  }
});

Deno.test("`TaskRunner` turns a device red with the notice that says what to do", async (t) => {
  await t.step("a refused credential: sign in", async () => {
    const applet = await appletEnv({ service: throwing("SignInError"), account: "remote" });
    try {
      await applet.runner.connect(applet.env.project, "mail", {
        kind: "remote",
        origin: "https://mail.example",
        credential: "old-token",
      });
      const attempt = await applet.runner.runTask(applet.env.project, "mail", "sync");
      assert.equal(attempt.outcome, "failed");
      const shown = await view(applet);
      assert.equal(shown.lamp, "red");
      assert.equal(shown.notice?.kind, "sign-in");
      assert.equal(shown.notice?.action, "connect");
      assert.match(shown.notice!.message, /Sign in again/);
      applet.timers.time += 60 * MIN;
      await applet.runner.tick();
      assert.equal((await attempts(applet)).length, 1, "a red device runs nothing by itself");
      // Signing in again is connecting with a new credential.
      await applet.runner.connect(applet.env.project, "mail", {
        kind: "remote",
        origin: "https://mail.example",
        credential: "new-token",
      });
      assert.equal((await view(applet)).lamp, "steady");
    } finally {
      await applet.close();
    }
  });

  await t.step("a removed folder: allow access", async () => {
    const applet = await appletEnv({ service: service(`return null;`) });
    try {
      await applet.runner.connect(applet.env.project, "mail", {
        kind: "folder",
        folder: applet.folder,
      });
      await Deno.remove(applet.folder, { recursive: true });
      const attempt = await applet.runner.runTask(applet.env.project, "mail", "sync");
      assert.equal(attempt.outcome, "failed");
      assert.deepEqual(attempt.receipts, [], "the handler was not called");
      const shown = await view(applet);
      assert.equal(shown.lamp, "red");
      assert.equal(shown.notice?.kind, "allow-access");
      assert.match(shown.notice!.message, /is gone or cannot be read/);
    } finally {
      await applet.close();
    }
  });

  await t.step("an error named AccountAccessError: allow access", async () => {
    const applet = await appletEnv({ service: throwing("AccountAccessError") });
    try {
      await applet.runner.connect(applet.env.project, "mail", {
        kind: "folder",
        folder: applet.folder,
      });
      await applet.runner.runTask(applet.env.project, "mail", "sync");
      assert.equal((await view(applet)).notice?.kind, "allow-access");
    } finally {
      await applet.close();
    }
  });

  await t.step("any other failure: review the run", async () => {
    const applet = await appletEnv({ service: throwing("TypeError") });
    try {
      await applet.runner.connect(applet.env.project, "mail", {
        kind: "folder",
        folder: applet.folder,
      });
      const attempt = await applet.runner.runTask(applet.env.project, "mail", "sync");
      assert.equal(attempt.outcome, "failed");
      assert.equal(attempt.try, 1);
      assert.equal((await task(applet)).failuresInRow, 0, "not retried");
      assert.equal((await view(applet)).notice?.kind, "review-run");
    } finally {
      await applet.close();
    }
  });
});

Deno.test("`TaskRunner` keeps a paused device's content and runs nothing", async () => {
  const applet = await appletEnv({
    service: service(`await memory.write({ key: "mail.message/1", title: "m" });
      return { coverage: { read: 1, of: 1, failed: 0 } };`),
  });
  const { runner, timers, env } = applet;
  try {
    await runner.connect(env.project, "mail", { kind: "folder", folder: applet.folder });
    await runner.runTask(env.project, "mail", "sync");
    await runner.pause(env.project, "mail");
    const shown = await view(applet);
    assert.equal(shown.state, "paused");
    assert.equal(shown.lamp, "paused");
    assert.notEqual(shown.lastRead, null, "what it read stays");
    const memory = await env.host.projectMemory(env.project);
    assert.notEqual(await getRecord(memory, "mail.message/1"), null);
    timers.time += 60 * MIN;
    await runner.tick();
    assert.equal((await attempts(applet)).length, 1, "nothing ran");
    await assert.rejects(runner.runTask(env.project, "mail", "sync"), /paused; resume it first/);
    await runner.resume(env.project, "mail");
    await runner.tick();
    assert.equal((await attempts(applet)).length, 2, "due, it runs once resumed");
  } finally {
    await applet.close();
  }
});

Deno.test("`TaskRunner` keeps the last step's coverage, unknown counts unknown", async (t) => {
  const applet = await appletEnv({
    service: service(`const step = occasion.task.step;
      if (step < 3) return { continue: { page: step }, coverage: { read: step, of: null, failed: 0 } };
      return { coverage: payload.continue.page === 2
        ? { read: 1204, of: 1210, failed: 6, reasons: [{ item: "cur/1", reason: "no From" }] }
        : { read: 0, of: 0, failed: 0 } };`),
  });
  const { runner, env } = applet;
  try {
    await runner.connect(env.project, "mail", { kind: "folder", folder: applet.folder });
    await t.step("`continue` calls the handler again in the same attempt", async () => {
      const attempt = await runner.runTask(env.project, "mail", "sync");
      assert.equal(attempt.outcome, "ok");
      assert.equal(attempt.receipts.length, 3, "three steps, three receipts");
      assert.equal(new Set(attempt.receipts).size, 3);
      assert.deepEqual(attempt.coverage, {
        read: 1204,
        of: 1210,
        failed: 6,
        reasons: [{ item: "cur/1", reason: "no From" }],
      });
      const shown = await view(applet);
      assert.equal(
        describeCoverage(shown.lastRead!.coverage),
        "read 1,204 of 1,210 items; 6 could not be parsed",
      );
    });
    await t.step("an unknown total is said unknown, never 0", () => {
      assert.equal(
        describeCoverage({ read: 12, of: null, failed: 0 }),
        "read 12 items; total unknown",
      );
    });
  } finally {
    await applet.close();
  }

  await t.step("a total the handler cannot know stays null on the device", async () => {
    const unknown = await appletEnv({
      service: service(`return { coverage: { read: 3, of: null, failed: 1 } };`),
    });
    try {
      await unknown.runner.connect(unknown.env.project, "mail", {
        kind: "folder",
        folder: unknown.folder,
      });
      await unknown.runner.runTask(unknown.env.project, "mail", "sync");
      const shown = await view(unknown);
      assert.strictEqual(shown.lastRead?.coverage.of, null);
      assert.equal(shown.lastRead?.coverage.read, 3);
    } finally {
      await unknown.close();
    }
  });
});

Deno.test("`TaskRunner` stops a run that asks to continue past the step bound", async () => {
  const applet = await appletEnv({
    service: service(`return { continue: occasion.task.step };`),
    host: { limits: { rateLimit: 1_000 } },
    runner: { maxStepsPerAttempt: 100 },
  });
  try {
    await applet.runner.connect(applet.env.project, "mail", {
      kind: "folder",
      folder: applet.folder,
    });
    const attempt = await applet.runner.runTask(applet.env.project, "mail", "sync");
    assert.equal(attempt.outcome, "failed");
    assert.equal(attempt.receipts.length, 100);
    assert.match(attempt.error!, /continue past 100 steps/);
  } finally {
    await applet.close();
  }
});

Deno.test("`TaskRunner` counts an attempt once against its handler's rate, not each step", async () => {
  const applet = await appletEnv({
    service: service(
      `return occasion.task.step < 10 ? { continue: occasion.task.step } : { coverage: { read: 1, of: 1, failed: 0 } };`,
    ),
    host: { limits: { rateLimit: 3, rateWindowMs: 60_000 } },
  });
  try {
    await applet.runner.connect(applet.env.project, "mail", {
      kind: "folder",
      folder: applet.folder,
    });
    for (let i = 0; i < 3; i++) {
      const attempt = await applet.runner.runTask(applet.env.project, "mail", "sync");
      assert.equal(attempt.outcome, "ok", attempt.error);
      assert.equal(attempt.receipts.length, 10);
    }
    // The fourth attempt is the fourth call of the handler in the window.
    const fourth = await applet.runner.runTask(applet.env.project, "mail", "sync");
    assert.equal(fourth.outcome, "transient");
    assert.match(fourth.error!, /called 3 times/);
  } finally {
    await applet.close();
  }
});

Deno.test("`TaskRunner` tells a device's changes, and nothing of its account", async () => {
  const told: unknown[] = [];
  const applet = await appletEnv({
    service: service(`return null;`),
    account: "remote",
    runner: { events: { publish: (event) => told.push(event) } },
  });
  const { runner, env } = applet;
  try {
    await runner.connect(env.project, "mail", {
      kind: "remote",
      origin: "https://mail.example",
      credential: "tok-told",
    });
    assert.deepEqual(told, [{ type: "device", project: env.project, packageId: "mail" }]);
    await runner.runTask(env.project, "mail", "sync");
    // Once as the run began (processing), once as it ended.
    assert.equal(told.length, 3);
    assert.ok(!JSON.stringify(told).includes("tok-told"));
  } finally {
    await applet.close();
  }
});

Deno.test("`TaskRunner` keeps a failed run's partial coverage on its attempt, not as the last read", async () => {
  const applet = await appletEnv({
    service: service(
      `if (occasion.task.step === 1) return { continue: 1, coverage: { read: 50, of: null, failed: 0 } };
      throw new TypeError("page 2 could not be read");`,
    ),
  });
  try {
    await applet.runner.connect(applet.env.project, "mail", {
      kind: "folder",
      folder: applet.folder,
    });
    const attempt = await applet.runner.runTask(applet.env.project, "mail", "sync");
    assert.equal(attempt.outcome, "failed");
    assert.deepEqual(attempt.coverage, { read: 50, of: null, failed: 0 });
    assert.equal(
      (await view(applet)).lastRead,
      null,
      "a failed read leaves the last read as it was",
    );
  } finally {
    await applet.close();
  }
});
