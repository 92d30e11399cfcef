import assert from "node:assert/strict";
import { join } from "node:path";
import { Hono } from "hono";
import { EventBus } from "../../../runtime/event_bus.ts";
import { eventRoutes } from "../../../runtime/web/api/events.ts";
import type { ReceiptEvent, StreamEvent } from "../../../runtime/web/api/events_types.ts";
import type { ExtensionsResponse } from "../../../runtime/web/api/types.ts";
import { createApp } from "../../../runtime/web/app.ts";
import { LinkedFolders } from "../../../runtime/web/linked_folders.ts";
import { testHost } from "../../internal/packages.ts";
import { SseReader } from "../../internal/sse.ts";

const TOKEN = "t".repeat(48);
const ORIGIN = "http://127.0.0.1:4321";

/** Waits until `ok()` holds; fails after `ms`. */
async function until(ok: () => boolean, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) throw new Error("the condition did not hold in time");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

Deno.test("GET /api/events streams a project's facts as they happen", async (t) => {
  const env = await testHost();
  const app = createApp(env.host, { token: TOKEN, port: 4321 });
  const open = (project: string, headers: Record<string, string> = {}) =>
    app.request(
      `${ORIGIN}/api/events?project=${encodeURIComponent(project)}`,
      { headers: { cookie: `sync_token_4321=${TOKEN}`, ...headers } },
    );
  try {
    await env.install({
      id: "ping",
      handlers: ["ping.now"],
      service: `export default function register() { return { "ping.now": () => "pong" }; }`,
    });

    await t.step("a call's start, receipt and end reach an open stream", async () => {
      const response = await open(env.project);
      assert.equal(response.status, 200);
      assert.equal(response.headers.get("content-type"), "text/event-stream");
      const stream = new SseReader(response.body!);
      try {
        assert.deepEqual(await stream.event("ready"), { type: "ready", project: env.project });
        await env.call("ping", "ping.now");
        const started = await stream.next();
        assert.equal(started.event, "handler-started");
        const receipt = await stream.next();
        assert.equal(receipt.event, "receipt");
        const event = JSON.parse(receipt.data!) as ReceiptEvent;
        assert.equal(event.receipt.handler, "ping.now");
        assert.equal(event.receipt.outcome, "ok");
        assert.equal((await stream.next()).event, "handler-ended");
      } finally {
        await stream.cancel();
      }
      // The page went away: its watcher leaves the bus.
      await until(() => env.host.events.watchers === 0);
    });

    await t.step("another project's facts are not sent", async () => {
      const other = await Deno.makeTempDir({ prefix: "sync-other-" });
      const response = await open(other);
      const stream = new SseReader(response.body!);
      try {
        await stream.event("ready");
        await env.call("ping", "ping.now");
        env.host.events.publish({
          type: "switch",
          project: await Deno.realPath(other),
          packageId: "ping",
          on: false,
        });
        // The first fact it is sent is its own project's, published after the call.
        const first = await stream.next();
        assert.equal(first.event, "switch", JSON.stringify(first));
      } finally {
        await stream.cancel();
        await Deno.remove(other, { recursive: true });
      }
    });

    await t.step("the stream is guarded, and names a missing or unknown project", async () => {
      const anonymous = await app.request(
        `${ORIGIN}/api/events?project=${encodeURIComponent(env.project)}`,
      );
      assert.equal(anonymous.status, 401);
      const missing = await app.request(`${ORIGIN}/api/events`, {
        headers: { cookie: `sync_token_4321=${TOKEN}` },
      });
      assert.equal(missing.status, 400);
      assert.match((await missing.json()).error, /project/);
      const unknown = await open("/no/such/folder");
      assert.equal(unknown.status, 404);
      assert.equal(env.host.events.watchers, 0);
    });

    await t.step(
      "GET /api/projects/events tells the start page's facts of every project, and no others",
      async () => {
        const response = await app.request(`${ORIGIN}/api/projects/events`, {
          headers: { cookie: `sync_token_4321=${TOKEN}` },
        });
        assert.equal(response.status, 200);
        assert.equal(response.headers.get("content-type"), "text/event-stream");
        const stream = new SseReader(response.body!);
        const other = await Deno.realPath(await Deno.makeTempDir({ prefix: "sync-other-" }));
        try {
          assert.deepEqual(await stream.event("ready"), { type: "ready" });
          // A call's facts are not the start page's: the first it is sent is the opening.
          await env.call("ping", "ping.now");
          const opened = await app.request(`${ORIGIN}/api/projects/open`, {
            method: "POST",
            headers: {
              cookie: `sync_token_4321=${TOKEN}`,
              origin: ORIGIN,
              "content-type": "application/json",
            },
            body: JSON.stringify({ path: other }),
          });
          assert.equal(opened.status, 200, await opened.clone().text());
          await opened.body?.cancel();
          const first = await stream.next();
          assert.equal(first.event, "opened", JSON.stringify(first));
          assert.deepEqual(JSON.parse(first.data!), { type: "opened", project: other });
          await env.install({
            id: "pong",
            handlers: ["pong.now"],
            service: `export default function register() { return { "pong.now": () => 1 }; }`,
          });
          const installed = await stream.next();
          assert.equal(installed.event, "installed", JSON.stringify(installed));
          assert.equal(
            (JSON.parse(installed.data!) as StreamEvent & { packageId: string })
              .packageId,
            "pong",
          );
        } finally {
          await stream.cancel();
          await Deno.remove(other, { recursive: true });
        }
        await until(() => env.host.events.watchers === 0);
      },
    );

    await t.step(
      "`closeWatchers()` ends every open stream (as serve does when it stops)",
      async () => {
        const response = await open(env.project);
        const stream = new SseReader(response.body!);
        await stream.event("ready");
        env.host.events.closeWatchers();
        await assert.rejects(stream.next(), /the stream ended/);
      },
    );
  } finally {
    await env.close();
  }
});

Deno.test("the event stream sends a heartbeat when quiet, and resync to a page that fell behind", async (t) => {
  const bus = new EventBus();
  const app = new Hono().route("/api", eventRoutes(bus, { heartbeatMs: 20, maxQueued: 4 }));
  const project = await Deno.realPath(await Deno.makeTempDir({ prefix: "sync-events-" }));
  try {
    await t.step("a quiet stream sends a comment now and then", async () => {
      const response = await app.request(`/api/events?project=${encodeURIComponent(project)}`);
      const stream = new SseReader(response.body!);
      try {
        await stream.event("ready");
        assert.deepEqual(await stream.next(), { comment: "heartbeat" });
      } finally {
        await stream.cancel();
      }
    });

    await t.step("more facts than its bound at once: resync, then what came after", async () => {
      const response = await app.request(`/api/events?project=${encodeURIComponent(project)}`);
      const stream = new SseReader(response.body!);
      try {
        await stream.event("ready");
        for (let i = 0; i < 10; i++) {
          bus.publish({ type: "switch", project, packageId: `p${i}`, on: true });
        }
        // Four were held, the fifth dropped them all; four more, the tenth dropped those.
        assert.deepEqual(await stream.event("resync"), { type: "resync", dropped: 10 });
        bus.publish({ type: "switch", project, packageId: "after", on: true });
        const next = (await stream.event("switch")) as StreamEvent;
        assert.equal(next.type === "switch" && next.packageId, "after");
      } finally {
        await stream.cancel();
      }
    });

    await t.step("a page that does not read holds no more than the bound on the host", async () => {
      const response = await app.request(`/api/events?project=${encodeURIComponent(project)}`);
      // Never read: whatever the connection buffers, the bus keeps at most 4 for it.
      for (let i = 0; i < 10_000; i++) {
        bus.publish({ type: "switch", project, packageId: `p${i}`, on: true });
        if (i % 1000 === 0) await new Promise((resolve) => setTimeout(resolve, 0));
      }
      const stream = new SseReader(response.body!);
      try {
        // What it reads once it starts is a bounded tail, and a resync says the rest was dropped.
        let blocks = 0;
        let resynced = false;
        while (true) {
          const block = await stream.next();
          blocks++;
          if (block.event === "resync") resynced = true;
          if (block.event === "switch" && JSON.parse(block.data!).packageId === "p9999") break;
        }
        assert.ok(resynced);
        assert.ok(blocks < 100, `read ${blocks} blocks`);
      } finally {
        await stream.cancel();
      }
    });
  } finally {
    bus.closeWatchers();
    await Deno.remove(project, { recursive: true });
  }
});

Deno.test("a linked package's manifest broken and fixed reaches an open stream, and its lamp follows", async () => {
  const env = await testHost();
  const linkedFolders = new LinkedFolders(env.kv, env.host.events, { settleMs: 50 });
  const app = createApp(env.host, { token: TOKEN, port: 4321, linkedFolders });
  const headers = { cookie: `sync_token_4321=${TOKEN}` };
  const lamp = async () => {
    const response = await app.request(
      `${ORIGIN}/api/extensions?project=${encodeURIComponent(env.project)}`,
      { headers },
    );
    const body = await response.json() as ExtensionsResponse;
    return body.extensions.find((extension) => extension.id === "hello")!.lamp;
  };
  let stream: SseReader | undefined;
  try {
    const dir = await env.install({
      id: "hello",
      handlers: ["hello.greet"],
      service: `export default function register() { return { "hello.greet": () => null }; }`,
    });
    const manifest = join(dir, "manifest.json");
    const good = await Deno.readTextFile(manifest);
    const response = await app.request(
      `${ORIGIN}/api/events?project=${encodeURIComponent(env.project)}`,
      { headers },
    );
    stream = new SseReader(response.body!);
    await stream.event("ready");
    await linkedFolders.settled();
    assert.ok(linkedFolders.folders.includes(dir), "watched while the stream is open");
    assert.equal((await lamp()).state, "steady");

    await Deno.writeTextFile(manifest, "{ broken");
    const broken = Date.now();
    assert.deepEqual(await stream.event("package-changed", 5_000), {
      type: "package-changed",
      project: env.project,
      packageId: "hello",
    });
    console.log(`manifest written → package-changed received: ${Date.now() - broken} ms`);
    const red = await lamp();
    assert.equal(red.state, "red");
    assert.equal(red.notices[0].reason, "cannot-load");

    await Deno.writeTextFile(manifest, good);
    await stream.event("package-changed", 5_000);
    assert.equal((await lamp()).state, "steady");
  } finally {
    await stream?.cancel();
    await until(() => env.host.events.watchers === 0);
    assert.deepEqual(linkedFolders.folders, [], "the window went: nothing is watched");
    linkedFolders.close();
    await new Promise((resolve) => setTimeout(resolve, 50));
    await env.close();
  }
});
