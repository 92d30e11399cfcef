import assert from "node:assert/strict";
import { join } from "node:path";
import type { ReceiptEvent, StreamEvent } from "../../../runtime/web/api/events_types.ts";
import { runSync } from "../../internal/cli.ts";
import { writePackage } from "../../internal/packages.ts";
import { ServeProcess } from "../../internal/serve_process.ts";
import { SseReader } from "../../internal/sse.ts";

Deno.test("a `sync call` from another process reaches an open /api/events stream of `sync serve`", async (t) => {
  const root = await Deno.makeTempDir({ prefix: "sync-events-serve-" });
  const home = join(root, "home");
  const project = join(root, "project");
  await Deno.mkdir(project);
  const serve = new ServeProcess(home);
  let stream: SseReader | undefined;
  let start: SseReader | undefined;
  try {
    const folder = await writePackage(join(root, "packages"), {
      id: "ping",
      permissions: ["background", "schedule"],
      handlers: ["ping.now"],
      service: `export default function register() { return { "ping.now": () => "pong" }; }`,
      manifest: { schedule: [{ handler: "ping.now", description: "Pings", every: "1d" }] },
    });
    const url = new URL(await serve.url());
    const token = url.searchParams.get("token")!;
    const real = await Deno.realPath(project);
    const response = await fetch(
      `${url.origin}/api/events?project=${encodeURIComponent(project)}&token=${token}`,
    );
    assert.equal(response.status, 200);
    stream = new SseReader(response.body!);
    assert.deepEqual(await stream.event("ready"), { type: "ready", project: real });
    const startResponse = await fetch(`${url.origin}/api/projects/events?token=${token}`);
    assert.equal(startResponse.status, 200);
    start = new SseReader(startResponse.body!);
    assert.deepEqual(await start.event("ready"), { type: "ready" });

    await t.step("an install by the CLI is told", async () => {
      const installed = await runSync(home, ["install", folder, "--project", project, "--approve"]);
      assert.equal(installed.code, 0, installed.stderr);
      const event = (await stream!.event("installed")) as StreamEvent;
      assert.deepEqual(event, {
        type: "installed",
        project: real,
        packageId: "ping",
        version: "1.0.0",
        waitingForApproval: false,
      });
      // The start page's stream is told too: its project now has one more extension.
      assert.deepEqual(await start!.event("installed"), event);
    });

    await t.step(
      "a `sync open` of another project by the CLI is told to the start page",
      async () => {
        const second = join(root, "second");
        await Deno.mkdir(second);
        const opened = await runSync(home, ["open", "--project", second]);
        assert.equal(opened.code, 0, opened.stderr);
        assert.deepEqual(await start!.event("opened"), {
          type: "opened",
          project: await Deno.realPath(second),
        });
      },
    );

    await t.step("the call's receipt arrives without asking; the delay is measured", async () => {
      // The clock may run ping.now once on its own first look; wait for a person's call.
      const called = await runSync(home, ["call", "ping", "ping.now", "--project", project]);
      assert.equal(called.code, 0, called.stderr);
      let event: ReceiptEvent;
      let received: number;
      do {
        event = (await stream!.event("receipt")) as ReceiptEvent;
        received = Date.now();
      } while (event.receipt.occasion.kind !== "extension");
      assert.equal(event.receipt.outcome, "ok");
      assert.equal(event.receipt.handler, "ping.now");
      // Measured, not asserted: from the receipt's end (written just after) to here.
      console.log(
        `receipt written → event received: ${received - Date.parse(event.receipt.endedAt)} ms`,
      );
    });

    await t.step("a switch by the CLI is told", async () => {
      const off = await runSync(home, ["switch", "ping", "off", "--project", project]);
      assert.equal(off.code, 0, off.stderr);
      assert.deepEqual(await stream!.event("switch"), {
        type: "switch",
        project: real,
        packageId: "ping",
        on: false,
      });
    });

    await t.step("a removal by the CLI is told", async () => {
      const removed = await runSync(home, ["remove", "ping", "--project", project]);
      assert.equal(removed.code, 0, removed.stderr);
      assert.deepEqual(await stream!.event("removed"), {
        type: "removed",
        project: real,
        packageId: "ping",
      });
    });

    await t.step("Ctrl-C stops the serve with the stream still open, and ends it", async () => {
      const status = await serve.stop("SIGINT");
      assert.equal(status.code, 0);
      await assert.rejects(stream!.next(), /the stream ended|error/i);
    });
  } finally {
    await stream?.cancel();
    await start?.cancel();
    await serve.stop("SIGKILL");
    await Deno.remove(root, { recursive: true });
  }
});
