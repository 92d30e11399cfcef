import assert from "node:assert/strict";
import { Hono } from "hono";
import { Foreground } from "../../runtime/host/foreground.ts";
import { foregroundFirst } from "../../runtime/web/middleware/foreground_first.ts";
import { ParserPool } from "../../runtime/parsers/pool.ts";

Deno.test("`Foreground` holds background work back while a person's request is young", async (t) => {
  await t.step("with nothing in flight, work goes on at once", () => {
    const foreground = new Foreground();
    assert.equal(foreground.wait(), null);
    assert.equal(Atomics.load(foreground.held, 0), 0);
  });

  await t.step("a request in flight holds work until it is answered", async () => {
    const foreground = new Foreground({ holdMs: 60_000 });
    const leave = foreground.enter();
    assert.equal(Atomics.load(foreground.held, 0), 1);
    const held = foreground.wait();
    assert.ok(held instanceof Promise);
    let released = false;
    held.then(() => released = true);
    await Promise.resolve();
    assert.equal(released, false);
    leave();
    await held;
    assert.equal(Atomics.load(foreground.held, 0), 0);
    assert.equal(foreground.wait(), null);
    leave(); // a second time does nothing
    assert.equal(foreground.wait(), null);
  });

  await t.step("work waits for every young request, not the first to end", async () => {
    const foreground = new Foreground({ holdMs: 60_000 });
    const first = foreground.enter();
    const second = foreground.enter();
    const held = foreground.wait()!;
    let released = false;
    held.then(() => released = true);
    first();
    await Promise.resolve();
    assert.equal(released, false);
    assert.equal(Atomics.load(foreground.held, 0), 1);
    second();
    await held;
    assert.equal(released, true);
  });

  await t.step("a request that runs long holds work for holdMs only", async () => {
    const foreground = new Foreground({ holdMs: 20 });
    const leave = foreground.enter();
    const held = foreground.wait()!;
    // Resolves by itself, the request still in flight.
    await held;
    assert.equal(Atomics.load(foreground.held, 0), 0);
    assert.equal(foreground.wait(), null);
    leave();
  });

  await t.step("the middleware marks each request it answers", async () => {
    const foreground = new Foreground({ holdMs: 60_000 });
    const app = new Hono();
    app.use("/api/*", foregroundFirst(foreground));
    app.onError((_error, c) => c.text("it failed", 500));
    app.get("/api/look", (c) => c.json({ held: Atomics.load(foreground.held, 0) }));
    app.get("/api/fails", () => {
      throw new Error("no");
    });
    assert.deepEqual(await (await app.request("/api/look")).json(), { held: 1 });
    assert.equal(Atomics.load(foreground.held, 0), 0);
    assert.equal((await app.request("/api/fails")).status, 500);
    assert.equal(foreground.wait(), null, "a failed request is let go too");
  });
});

Deno.test("`ParserPool` asks its gate before each parse starts", async () => {
  let release: (() => void) | undefined;
  let asked = 0;
  const gate = {
    wait: () => {
      asked++;
      return release ? null : new Promise<void>((resolve) => release = resolve);
    },
  };
  const pool = new ParserPool({ yieldTo: gate });
  try {
    const message = new TextEncoder().encode(
      "From: a@example.org\r\nSubject: Hi\r\nMessage-ID: <1@x>\r\n\r\nHello\r\n",
    );
    let settled = false;
    const parsed = pool.parseMail([message]).finally(() => settled = true);
    while (release === undefined) await new Promise((resolve) => setTimeout(resolve, 1));
    assert.equal(settled, false, "it parsed while held");
    release();
    const [result] = await parsed;
    assert.equal(result.ok && result.value.subject, "Hi");
    assert.equal(asked, 1);
  } finally {
    pool.close();
  }
});
