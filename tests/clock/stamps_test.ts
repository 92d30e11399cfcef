import assert from "node:assert/strict";
import {
  beginAttempt,
  clearSkip,
  endAttempt,
  forgetSchedule,
  markSkip,
  needsReview,
  readStamp,
  readStamps,
  recentOutcomes,
  REVIEW_AFTER_FAILURES,
  type ScheduleStamp,
  takeBackAttempt,
} from "../../runtime/clock/stamps.ts";
import { scheduleSkipKey } from "../../runtime/clock/keys.ts";

const P = "/projects/alpha";
const MINUTE = 60_000;
const T0 = Date.UTC(2030, 0, 1, 9, 0, 0);
const BOOM = { name: "HandlerFailedError", message: "the tracker is down" };

/** Begins an attempt of a handler that never ran, looked at and started at `at`. */
async function begin(kv: Deno.Kv, id: string, handler: string, at: number): Promise<ScheduleStamp> {
  const previous = await readStamp(kv, P, id, handler);
  const begun = await beginAttempt(kv, P, id, handler, {
    at,
    startedAt: at,
    previousAt: previous?.at ?? null,
  });
  assert.ok(begun, `${handler} began at ${at}`);
  return begun;
}

/** Runs one whole attempt that ends as `outcome`. */
async function attempt(
  kv: Deno.Kv,
  id: string,
  handler: string,
  at: number,
  outcome: "ok" | "failed" | "skipped",
  counts?: boolean,
): Promise<void> {
  const begun = await begin(kv, id, handler, at);
  await endAttempt(kv, P, id, handler, begun, {
    outcome,
    endedAt: at + 1,
    ...(outcome === "failed" ? { error: BOOM } : {}),
    ...(counts === undefined ? {} : { counts }),
  });
}

Deno.test("`beginAttempt()` stamps an attempt as it starts, once", async (t) => {
  using kv = await Deno.openKv(":memory:");

  await t.step("`readStamp()` answers null for a handler that never ran", async () => {
    assert.equal(await readStamp(kv, P, "tracker", "tracker.poll"), null);
  });

  await t.step("a never-run handler is stamped running, before it runs", async () => {
    const begun = await beginAttempt(kv, P, "tracker", "tracker.poll", {
      at: T0,
      startedAt: T0 + 5,
      previousAt: null,
    });
    const expected = { at: T0, startedAt: T0 + 5, outcome: "running" };
    assert.deepEqual(begun, expected);
    assert.deepEqual(await readStamp(kv, P, "tracker", "tracker.poll"), expected);
  });

  await t.step(
    "an attempt whose look saw another stamp is refused and writes nothing",
    async () => {
      // This clock looked before the stamp above was written: it saw none.
      const late = await beginAttempt(kv, P, "tracker", "tracker.poll", {
        at: T0 + 10,
        startedAt: T0 + 10,
        previousAt: null,
      });
      assert.equal(late, null);
      assert.equal((await readStamp(kv, P, "tracker", "tracker.poll"))?.startedAt, T0 + 5);
    },
  );

  await t.step("the next attempt begins when it names the stamp it saw", async () => {
    const next = await beginAttempt(kv, P, "tracker", "tracker.poll", {
      at: T0 + 60 * MINUTE,
      startedAt: T0 + 60 * MINUTE,
      previousAt: T0,
    });
    assert.equal(next?.at, T0 + 60 * MINUTE);
  });

  await t.step("of two attempts begun at once on the same stamp, exactly one starts", async () => {
    const times = (startedAt: number) => ({ at: T0, startedAt, previousAt: null });
    const results = await Promise.all([
      beginAttempt(kv, P, "race", "race.run", times(T0 + 1)),
      beginAttempt(kv, P, "race", "race.run", times(T0 + 2)),
    ]);
    const started = results.filter((stamp) => stamp !== null);
    assert.equal(started.length, 1, "one attempt started");
    assert.deepEqual(await readStamp(kv, P, "race", "race.run"), started[0]);
  });

  await t.step("a guard entry changed since it was read stops the attempt", async () => {
    await kv.set(["guard", P], { extensionIds: ["guarded"] });
    const guard = await kv.get(["guard", P]);
    await kv.set(["guard", P], { extensionIds: [] });
    const refused = await beginAttempt(kv, P, "guarded", "guarded.run", {
      at: T0,
      startedAt: T0,
      previousAt: null,
      guard,
    });
    assert.equal(refused, null);
    assert.equal(await readStamp(kv, P, "guarded", "guarded.run"), null);

    const unchanged = await kv.get(["guard", P]);
    const begun = await beginAttempt(kv, P, "guarded", "guarded.run", {
      at: T0,
      startedAt: T0,
      previousAt: null,
      guard: unchanged,
    });
    assert.equal(begun?.outcome, "running");
  });

  await t.step("`readStamps()` answers a project's stamps by id and handler", async () => {
    await begin(kv, "tracker", "tracker.tidy", T0);
    await beginAttempt(kv, "/projects/beta", "tracker", "tracker.poll", {
      at: T0,
      startedAt: T0,
      previousAt: null,
    });
    const stamps = await readStamps(kv, P);
    assert.deepEqual([...stamps.keys()].sort(), [
      "guarded\0guarded.run",
      "race\0race.run",
      "tracker\0tracker.poll",
      "tracker\0tracker.tidy",
    ]);
    assert.equal(stamps.get("tracker\0tracker.poll")?.at, T0 + 60 * MINUTE);
  });
});

Deno.test("`endAttempt()` records how an attempt ended, never over a newer one", async (t) => {
  using kv = await Deno.openKv(":memory:");

  await t.step("a success keeps the start and adds the end and outcome", async () => {
    const begun = await begin(kv, "tracker", "tracker.poll", T0);
    await endAttempt(kv, P, "tracker", "tracker.poll", begun, { outcome: "ok", endedAt: T0 + 7 });
    assert.deepEqual(await readStamp(kv, P, "tracker", "tracker.poll"), {
      at: T0,
      startedAt: T0,
      endedAt: T0 + 7,
      outcome: "ok",
    });
    assert.deepEqual(await recentOutcomes(kv, P, "tracker"), ["ok"]);
  });

  await t.step("a failure keeps its error's name and message", async () => {
    const begun = await begin(kv, "tracker", "tracker.tidy", T0);
    await endAttempt(kv, P, "tracker", "tracker.tidy", begun, {
      outcome: "failed",
      endedAt: T0 + 9,
      error: BOOM,
    });
    assert.deepEqual(await readStamp(kv, P, "tracker", "tracker.tidy"), {
      at: T0,
      startedAt: T0,
      endedAt: T0 + 9,
      outcome: "failed",
      error: BOOM,
    });
    assert.deepEqual(await recentOutcomes(kv, P, "tracker"), ["ok", "failed"]);
  });

  await t.step("an attempt that does not count ends its stamp but not the outcomes", async () => {
    const begun = await begin(kv, "fenced", "fenced.run", T0);
    await endAttempt(kv, P, "fenced", "fenced.run", begun, {
      outcome: "failed",
      endedAt: T0 + 3,
      error: { name: "SupersededError", message: "switched off" },
      counts: false,
    });
    assert.equal((await readStamp(kv, P, "fenced", "fenced.run"))?.outcome, "failed");
    assert.deepEqual(await recentOutcomes(kv, P, "fenced"), []);
  });

  await t.step("an older attempt's end leaves a newer attempt's stamp alone", async () => {
    const older = await begin(kv, "slow", "slow.run", T0);
    const newer = await beginAttempt(kv, P, "slow", "slow.run", {
      at: T0 + MINUTE,
      startedAt: T0 + MINUTE,
      previousAt: T0,
    });
    assert.ok(newer);
    await endAttempt(kv, P, "slow", "slow.run", older, {
      outcome: "failed",
      endedAt: T0 + 2 * MINUTE,
      error: BOOM,
    });
    assert.deepEqual(await readStamp(kv, P, "slow", "slow.run"), newer);
    assert.deepEqual(await recentOutcomes(kv, P, "slow"), [], "its outcome is not recorded");
  });

  await t.step("an attempt whose stamp was forgotten records nothing", async () => {
    const begun = await begin(kv, "gone", "gone.run", T0);
    await forgetSchedule(kv, P, "gone");
    await endAttempt(kv, P, "gone", "gone.run", begun, { outcome: "ok", endedAt: T0 + 1 });
    assert.equal(await readStamp(kv, P, "gone", "gone.run"), null);
    assert.deepEqual(await recentOutcomes(kv, P, "gone"), []);
  });

  await t.step("two handlers of a package ending at once both count", async () => {
    const a = await begin(kv, "pair", "pair.a", T0);
    const b = await begin(kv, "pair", "pair.b", T0);
    await Promise.all([
      endAttempt(kv, P, "pair", "pair.a", a, { outcome: "failed", endedAt: T0 + 1, error: BOOM }),
      endAttempt(kv, P, "pair", "pair.b", b, { outcome: "ok", endedAt: T0 + 1 }),
    ]);
    assert.deepEqual((await recentOutcomes(kv, P, "pair")).sort(), ["failed", "ok"]);
    assert.equal((await readStamp(kv, P, "pair", "pair.a"))?.outcome, "failed");
    assert.equal((await readStamp(kv, P, "pair", "pair.b"))?.outcome, "ok");
  });
});

Deno.test("`needsReview()` is true after three failures in a row of a package", async (t) => {
  using kv = await Deno.openKv(":memory:");

  await t.step("the count is three", () => {
    assert.equal(REVIEW_AFTER_FAILURES, 3);
  });

  await t.step("a package that never ran, or failed once or twice, does not", async () => {
    assert.equal(await needsReview(kv, P, "flaky"), false);
    await attempt(kv, "flaky", "flaky.run", T0, "failed");
    assert.equal(await needsReview(kv, P, "flaky"), false);
    await attempt(kv, "flaky", "flaky.run", T0 + MINUTE, "failed");
    assert.equal(await needsReview(kv, P, "flaky"), false);
  });

  await t.step("the third failure in a row does", async () => {
    await attempt(kv, "flaky", "flaky.run", T0 + 2 * MINUTE, "failed");
    assert.equal(await needsReview(kv, P, "flaky"), true);
    assert.deepEqual(await recentOutcomes(kv, P, "flaky"), ["failed", "failed", "failed"]);
  });

  await t.step("one success resets it, and only three outcomes are kept", async () => {
    await attempt(kv, "flaky", "flaky.run", T0 + 3 * MINUTE, "ok");
    assert.equal(await needsReview(kv, P, "flaky"), false);
    assert.deepEqual(await recentOutcomes(kv, P, "flaky"), ["failed", "failed", "ok"]);
    await attempt(kv, "flaky", "flaky.run", T0 + 4 * MINUTE, "failed");
    await attempt(kv, "flaky", "flaky.run", T0 + 5 * MINUTE, "failed");
    assert.equal(await needsReview(kv, P, "flaky"), false, "the success is still among three");
    await attempt(kv, "flaky", "flaky.run", T0 + 6 * MINUTE, "failed");
    assert.equal(await needsReview(kv, P, "flaky"), true);
  });

  await t.step("failures of different handlers of one package count together", async () => {
    await attempt(kv, "multi", "multi.a", T0, "failed");
    await attempt(kv, "multi", "multi.b", T0, "failed");
    await attempt(kv, "multi", "multi.a", T0 + MINUTE, "failed");
    assert.equal(await needsReview(kv, P, "multi"), true);
  });

  await t.step("a failure that is not the handler's fault neither counts nor resets", async () => {
    await attempt(kv, "fence", "fence.run", T0, "failed");
    await attempt(kv, "fence", "fence.run", T0 + MINUTE, "failed");
    await attempt(kv, "fence", "fence.run", T0 + 2 * MINUTE, "failed", false);
    assert.equal(await needsReview(kv, P, "fence"), false, "two that count");
    await attempt(kv, "fence", "fence.run", T0 + 3 * MINUTE, "ok", false);
    await attempt(kv, "fence", "fence.run", T0 + 4 * MINUTE, "failed");
    assert.equal(await needsReview(kv, P, "fence"), true, "the uncounted did not break the row");
  });

  await t.step("a skipped outcome that counts breaks the row", async () => {
    await attempt(kv, "skip", "skip.run", T0, "failed");
    await attempt(kv, "skip", "skip.run", T0 + MINUTE, "failed");
    await attempt(kv, "skip", "skip.run", T0 + 2 * MINUTE, "skipped");
    assert.equal(await needsReview(kv, P, "skip"), false);
  });

  await t.step("another project's failures are its own", async () => {
    assert.equal(await needsReview(kv, "/projects/beta", "flaky"), false);
  });
});

Deno.test("`takeBackAttempt()` puts back the stamp the clock saw", async (t) => {
  using kv = await Deno.openKv(":memory:");

  await t.step("a handler that never ran is left with no stamp", async () => {
    const begun = await begin(kv, "held", "held.run", T0);
    await takeBackAttempt(kv, P, "held", "held.run", begun, null);
    assert.equal(await readStamp(kv, P, "held", "held.run"), null);
  });

  await t.step("a handler that ran before gets its earlier stamp back", async () => {
    await attempt(kv, "held", "held.run", T0, "ok");
    const previous = await readStamp(kv, P, "held", "held.run");
    const begun = await begin(kv, "held", "held.run", T0 + 60 * MINUTE);
    await takeBackAttempt(kv, P, "held", "held.run", begun, previous);
    assert.deepEqual(await readStamp(kv, P, "held", "held.run"), previous);
    assert.deepEqual(await recentOutcomes(kv, P, "held"), ["ok"], "outcomes are untouched");
  });

  await t.step("a stamp that is no longer this attempt's is left alone", async () => {
    const previous = await readStamp(kv, P, "held", "held.run");
    const begun = await begin(kv, "held", "held.run", T0 + 120 * MINUTE);
    const newer = await beginAttempt(kv, P, "held", "held.run", {
      at: T0 + 121 * MINUTE,
      startedAt: T0 + 121 * MINUTE,
      previousAt: T0 + 120 * MINUTE,
    });
    await takeBackAttempt(kv, P, "held", "held.run", begun, previous);
    assert.deepEqual(await readStamp(kv, P, "held", "held.run"), newer);
  });
});

Deno.test("`markSkip()` and `clearSkip()` report a skip once, when it starts or changes", async (t) => {
  using kv = await Deno.openKv(":memory:");
  const handler = { project: P, id: "tracker", handler: "tracker.poll" };

  await t.step("the first mark is news; the same reason again is not", async () => {
    assert.equal(await markSkip(kv, handler, { reason: "switched-off", at: T0 }), true);
    assert.equal(await markSkip(kv, handler, { reason: "switched-off", at: T0 + MINUTE }), false);
    assert.deepEqual((await kv.get(scheduleSkipKey(P, "tracker", "tracker.poll"))).value, {
      reason: "switched-off",
      at: T0,
    });
  });

  await t.step("another reason is news, and replaces the mark", async () => {
    assert.equal(await markSkip(kv, handler, { reason: "not-approved", at: T0 + 2 }), true);
    assert.deepEqual((await kv.get(scheduleSkipKey(P, "tracker", "tracker.poll"))).value, {
      reason: "not-approved",
      at: T0 + 2,
    });
  });

  await t.step("after a clear, the same reason is news again", async () => {
    await clearSkip(kv, handler);
    assert.equal((await kv.get(scheduleSkipKey(P, "tracker", "tracker.poll"))).versionstamp, null);
    assert.equal(await markSkip(kv, handler, { reason: "not-approved", at: T0 + 3 }), true);
  });

  await t.step("marks of a project, a package and a handler are apart", async () => {
    const project = { project: P };
    const pkg = { project: P, id: "tracker" };
    assert.equal(await markSkip(kv, project, { reason: "project-gone", at: T0 }), true);
    assert.equal(await markSkip(kv, pkg, { reason: "project-gone", at: T0 }), true);
    assert.equal(await markSkip(kv, handler, { reason: "not-approved", at: T0 }), false);
    await clearSkip(kv, pkg);
    assert.equal(await markSkip(kv, project, { reason: "project-gone", at: T0 }), false);
    assert.equal(await markSkip(kv, pkg, { reason: "project-gone", at: T0 }), true);
  });

  await t.step("of two marks made at once, one reports it", async () => {
    const key = { project: P, id: "race" };
    const news = await Promise.all([
      markSkip(kv, key, { reason: "not-installed", at: T0 }),
      markSkip(kv, key, { reason: "not-installed", at: T0 }),
    ]);
    assert.deepEqual(news.sort(), [false, true]);
  });
});

Deno.test("`forgetSchedule()` forgets a package's stamps, outcomes and skips in one project", async (t) => {
  using kv = await Deno.openKv(":memory:");
  const other = "/projects/beta";

  await t.step("everything of the package in the project goes", async () => {
    for (let i = 0; i < 3; i++) await attempt(kv, "tracker", "tracker.poll", T0 + i, "failed");
    // More stamps than one atomic write deletes.
    for (let i = 0; i < 150; i++) await begin(kv, "tracker", `tracker.h${i}`, T0);
    await markSkip(kv, { project: P, id: "tracker" }, { reason: "not-approved", at: T0 });
    await markSkip(kv, { project: P, id: "tracker", handler: "tracker.poll" }, {
      reason: "busy",
      at: T0,
    });
    assert.equal(await needsReview(kv, P, "tracker"), true);

    await forgetSchedule(kv, P, "tracker");
    assert.equal((await readStamps(kv, P)).size, 0);
    assert.deepEqual(await recentOutcomes(kv, P, "tracker"), []);
    assert.equal(await needsReview(kv, P, "tracker"), false);
    assert.equal(
      await markSkip(kv, { project: P, id: "tracker" }, { reason: "not-approved", at: T0 }),
      true,
      "the skip mark is gone",
    );
  });

  await t.step("other packages, other projects and the project's own mark stay", async () => {
    await attempt(kv, "tracker", "tracker.poll", T0, "failed");
    await attempt(kv, "tracker-2", "tracker-2.poll", T0, "failed");
    await beginAttempt(kv, other, "tracker", "tracker.poll", {
      at: T0,
      startedAt: T0,
      previousAt: null,
    });
    await markSkip(kv, { project: P }, { reason: "project-gone", at: T0 });

    await forgetSchedule(kv, P, "tracker");
    assert.deepEqual([...(await readStamps(kv, P)).keys()], ["tracker-2\0tracker-2.poll"]);
    assert.deepEqual(await recentOutcomes(kv, P, "tracker-2"), ["failed"]);
    assert.deepEqual([...(await readStamps(kv, other)).keys()], ["tracker\0tracker.poll"]);
    assert.equal(await markSkip(kv, { project: P }, { reason: "project-gone", at: T0 }), false);
  });
});
