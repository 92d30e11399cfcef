import assert from "node:assert/strict";
import { join } from "node:path";
import { createApp } from "../../../runtime/web/app.ts";
import { listReceipts } from "../../../runtime/host/receipts.ts";
import type { ReceiptConsoleResponse, RunResponse } from "../../../runtime/web/api/types.ts";
import { testHost } from "../../internal/packages.ts";

const TOKEN = "r".repeat(48);
const ORIGIN = "http://127.0.0.1:4321";
const COOKIE = { cookie: `sync_token_4321=${TOKEN}` };

const SERVICE = `export default function register() {
  return {
    "runner.echo": (payload) => { console.log("echo", JSON.stringify(payload)); return { got: payload }; },
    "runner.words": () => "plain words",
    "runner.nothing": () => null,
    "runner.long": () => ({ text: "z".repeat(30000) }),
    "runner.throws": () => { throw new Error("it broke on purpose"); },
    "runner.hangs": () => { while (true) {} },
    "runner.setup": () => null,
  };
}`;

Deno.test("`POST /api/extensions/:id/run` runs a handler as a person from the window", async (t) => {
  const env = await testHost({ limits: { timeoutMs: 500, maxValueBytes: 40_000 } });
  const app = createApp(env.host, { token: TOKEN, port: 4321 });
  const run = (body: Record<string, unknown>, id = "runner", headers: HeadersInit = {}) =>
    app.request(`${ORIGIN}/api/extensions/${id}/run`, {
      method: "POST",
      headers: { ...COOKIE, origin: ORIGIN, "content-type": "application/json", ...headers },
      body: JSON.stringify({ project: env.project, ...body }),
    });
  const receipts = async () => await listReceipts(env.kv, env.project, { packageId: "runner" });
  try {
    await env.install({
      id: "runner",
      handlers: [
        "runner.echo",
        "runner.words",
        "runner.nothing",
        "runner.long",
        "runner.throws",
        "runner.hangs",
        "runner.setup",
      ],
      service: SERVICE,
      manifest: { lifecycle: { installed: "runner.setup" } },
    });

    await t.step("with a payload: the answer laid out as JSON, and the receipt", async () => {
      const response = await run({ handler: "runner.echo", payload: { name: "Ada" } });
      assert.equal(response.status, 200);
      const body = await response.json() as RunResponse;
      assert.equal(body.outcome, "ok");
      assert.deepEqual(body.answer, {
        kind: "json",
        text: JSON.stringify({ got: { name: "Ada" } }, null, 2),
        cut: false,
      });
      assert.equal(body.receipt.handler, "runner.echo");
      assert.deepEqual(body.receipt.occasion, { kind: "extension" });
      assert.deepEqual(body.receipt.source, { kind: "person", via: "window" });
      assert.equal(body.receipt.consoleLines, 1);
      assert.equal((await receipts())[0].id, body.receipt.id, "the receipt is the one stored");
    });

    await t.step("the console lines kept with that receipt", async () => {
      const [receipt] = await receipts();
      const response = await app.request(
        `${ORIGIN}/api/extensions/runner/receipts/${receipt.id}/console?project=${
          encodeURIComponent(env.project)
        }`,
        { headers: COOKIE },
      );
      assert.equal(response.status, 200);
      const body = await response.json() as ReceiptConsoleResponse;
      assert.deepEqual(body.console, {
        lines: [{ level: "log", text: 'echo {"name":"Ada"}' }],
        leftOut: 0,
      });
    });

    await t.step("a string answer is text, nothing is none, a long one is cut", async () => {
      const words = await (await run({ handler: "runner.words" })).json() as RunResponse;
      assert.deepEqual(words.answer, { kind: "text", text: "plain words", cut: false });
      const nothing = await (await run({ handler: "runner.nothing" })).json() as RunResponse;
      assert.deepEqual(nothing.answer, { kind: "none" });
      const long = await (await run({ handler: "runner.long" })).json() as RunResponse;
      assert.equal(long.answer?.kind, "json");
      assert.ok(long.answer?.kind === "json" && long.answer.cut);
      assert.ok(long.answer?.kind === "json" && long.answer.text.length <= 20_000);
      assert.match(long.answer?.kind === "json" ? long.answer.text : "", /… \[cut: [\d,]+ more/);
    });

    await t.step("a handler that throws: its error and its failed receipt", async () => {
      const response = await run({ handler: "runner.throws" });
      assert.equal(response.status, 200);
      const body = await response.json() as RunResponse;
      assert.equal(body.outcome, "failed");
      assert.equal(body.answer, null);
      assert.equal(body.error?.name, "HandlerFailedError");
      assert.match(body.error?.message ?? "", /it broke on purpose/);
      assert.equal(body.receipt.outcome, "failed");
    });

    await t.step("a handler that hangs ends by the call's deadline", async () => {
      const body = await (await run({ handler: "runner.hangs" })).json() as RunResponse;
      assert.equal(body.outcome, "failed");
      assert.equal(body.error?.name, "HandlerTimeoutError");
      assert.equal(body.receipt.outcome, "failed");
    });

    await t.step("what cannot be attempted is refused in words, with no receipt", async () => {
      const before = (await receipts()).length;
      const setup = await run({ handler: "runner.setup" });
      assert.equal(setup.status, 400);
      assert.match(
        (await setup.json()).error,
        /^Sync runs runner\.setup when Runner is installed; it is not run by hand/,
      );
      const unknown = await run({ handler: "runner.missing" });
      assert.equal(unknown.status, 404);
      assert.match((await unknown.json()).error, /runner has no handler runner\.missing/);
      const notHere = await run({ handler: "other.run" }, "other");
      assert.equal(notHere.status, 404);
      assert.match((await notHere.json()).error, /other is not installed in/);
      const large = await run({ handler: "runner.echo", payload: { text: "x".repeat(50_000) } });
      assert.equal(large.status, 413);
      assert.match((await large.json()).error, /^The payload is \d+ bytes of JSON/);
      const noHandler = await run({});
      assert.equal(noHandler.status, 400);
      assert.equal((await receipts()).length, before, "none of these left a receipt");
    });

    await t.step("a package nothing approved serves here is refused, saying so", async () => {
      const dir = await env.install({
        id: "wider",
        handlers: ["wider.run"],
        service: `export default function register() { return { "wider.run": () => 1 }; }`,
      });
      // Its linked folder asks for more in place: nothing approved is left to serve it.
      const file = join(dir, "manifest.json");
      const manifest = JSON.parse(await Deno.readTextFile(file));
      manifest.permissions.push("net:tracker.example.com");
      await Deno.writeTextFile(file, JSON.stringify(manifest));
      const response = await run({ handler: "wider.run" }, "wider");
      assert.equal(response.status, 403);
      assert.equal((await response.json()).name, "ApprovalRequiredError");
    });

    await t.step("the token and the app's own Origin are required", async () => {
      const noToken = await app.request(`${ORIGIN}/api/extensions/runner/run`, {
        method: "POST",
        headers: { origin: ORIGIN, "content-type": "application/json" },
        body: JSON.stringify({ project: env.project, handler: "runner.words" }),
      });
      assert.equal(noToken.status, 401);
      const elsewhere = await run({ handler: "runner.words" }, "runner", {
        origin: "http://127.0.0.1:9999",
      });
      assert.equal(elsewhere.status, 403);
    });
  } finally {
    await env.close();
  }
});
