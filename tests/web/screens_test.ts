import assert from "node:assert/strict";
import { join } from "node:path";
import { createApp } from "../../runtime/web/app.ts";
import { listReceipts } from "../../runtime/host/receipts.ts";
import { removePackage } from "../../runtime/lifecycle/remove.ts";
import { testHost } from "../internal/packages.ts";

const TOKEN = "s".repeat(48);
const ORIGIN = "http://127.0.0.1:4321";
const COOKIE = { cookie: `sync_token_4321=${TOKEN}` };

const BOARD_SERVICE = `import { memory } from "@sync/extension-api/service";
export default function register() {
  return {
    "board.add": async (payload) => {
      const title = typeof payload?.title === "string" ? payload.title : "untitled";
      await memory.write({ key: "board.item/1", title });
      return { added: title };
    },
  };
}`;
const BOARD_UI = `export function activate(ctx) { document.body.textContent = ctx.screen.name; }\n`;

Deno.test("the screen routes serve a package's screen, and only what it may reach", async (t) => {
  const env = await testHost();
  const app = createApp(env.host, { token: TOKEN, port: 4321 });
  const url = (path: string) => `${ORIGIN}${path}`;
  const project = encodeURIComponent(env.project);
  const post = (path: string, body: unknown) =>
    app.request(url(path), {
      method: "POST",
      headers: { ...COOKIE, origin: ORIGIN, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
  try {
    const boardDir = await env.install({
      id: "board",
      handlers: ["board.add"],
      service: BOARD_SERVICE,
      types: { "item.json": "board.item" },
      ui: BOARD_UI,
    });
    await env.install({
      id: "other",
      handlers: ["other.ping"],
      service: `export default function register() { return { "other.ping": () => "pong" }; }`,
    });
    await env.call("other", "other.ping");

    let key = "";
    await t.step("GET /screens/:id answers a document under its own strict policy", async () => {
      const response = await app.request(url(`/screens/board?project=${project}`), {
        headers: COOKIE,
      });
      assert.equal(response.status, 200);
      assert.match(response.headers.get("content-type") ?? "", /^text\/html/);
      const policy = response.headers.get("content-security-policy") ?? "";
      const html = await response.text();
      key = /\/screen-files\/([0-9a-f]{64})\/runtime\.js/.exec(html)?.[1] ?? "";
      assert.ok(key, `the document loads the runtime by key: ${html}`);
      const directives = new Map(
        policy.split(";").map((d) => d.trim().split(/\s+/)).map(([name, ...v]) => [name, v]),
      );
      assert.deepEqual(directives.get("default-src"), ["'none'"]);
      assert.deepEqual(directives.get("script-src"), [`${ORIGIN}/screen-files/${key}/`]);
      assert.deepEqual(directives.get("style-src"), [`${ORIGIN}/screen-files/${key}/`]);
      assert.deepEqual(directives.get("connect-src"), ["'none'"]);
      assert.deepEqual(directives.get("img-src"), ["data:"]);
      assert.deepEqual(directives.get("frame-ancestors"), [ORIGIN]);
      assert.deepEqual(directives.get("sandbox"), ["allow-scripts"]);
      assert.doesNotMatch(policy, /allow-same-origin|unsafe-inline|unsafe-eval/);
      assert.doesNotMatch(html, /<script>|\son\w+=/, "the document has no inline script");
    });

    await t.step("the document needs the installation's token", async () => {
      const response = await app.request(url(`/screens/board?project=${project}`));
      assert.equal(response.status, 401);
    });

    await t.step(
      "its key serves the runtime, the style sheet and the package's screen",
      async () => {
        const get = (file: string) => app.request(url(`/screen-files/${key}/${file}`));
        const module = await get("index.js");
        assert.equal(module.status, 200);
        assert.match(module.headers.get("content-type") ?? "", /^text\/javascript/);
        assert.equal(module.headers.get("access-control-allow-origin"), "*");
        assert.equal(module.headers.get("x-content-type-options"), "nosniff");
        assert.equal(await module.text(), BOARD_UI);
        const runtime = await get("runtime.js");
        assert.equal(runtime.status, 200);
        assert.equal(
          await runtime.text(),
          await Deno.readTextFile(new URL("../../ui/dist/screen.js", import.meta.url)),
        );
        const styles = await get("screen.css");
        assert.equal(styles.status, 200);
        assert.match(styles.headers.get("content-type") ?? "", /^text\/css/);
        assert.match(await styles.text(), /--accent:/);
        assert.equal((await get("index.css")).status, 404, "the package built no style sheet");
      },
    );

    await t.step("nothing else of the package's folder, and no traversal", async () => {
      for (
        const path of [
          `/screen-files/${key}/manifest.json`,
          `/screen-files/${key}/service/index.js`,
          `/screen-files/${key}/..%2Fmanifest.json`,
          `/screen-files/${key}/%2e%2e%2f%2e%2e%2fmanifest.json`,
          `/screen-files/${key}/../../assets/app.js`,
          `/screen-files/${"0".repeat(64)}/index.js`,
          `/screen-files/${key.slice(0, 63)}x/index.js`,
        ]
      ) {
        const response = await app.request(url(path));
        assert.notEqual(response.status, 200, path);
        assert.doesNotMatch(await response.text(), /"id": "board"|register/, path);
      }
    });

    await t.step("a package without a screen, unknown or malformed ids are refused", async () => {
      for (const [id, status] of [["other", 404], ["nothing", 404], ["..%2Fx", 400]] as const) {
        const response = await app.request(url(`/screens/${id}?project=${project}`), {
          headers: COOKIE,
        });
        assert.equal(response.status, status, id);
        assert.match(response.headers.get("content-security-policy") ?? "", /script-src 'none'/);
      }
    });

    await t.step("a screen whose file links out of its folder is refused", async () => {
      const outside = join(env.project, "..", "secret.js");
      await Deno.writeTextFile(outside, "export const secret = 1;\n");
      const dir = await env.install({
        id: "linker",
        handlers: ["linker.x"],
        service: `export default function register() { return { "linker.x": () => 1 }; }`,
        ui: BOARD_UI,
      });
      await Deno.remove(join(dir, "ui", "index.js"));
      await Deno.symlink(outside, join(dir, "ui", "index.js"));
      const response = await app.request(url(`/screens/linker?project=${project}`), {
        headers: COOKIE,
      });
      assert.equal(response.status, 404);
      assert.doesNotMatch(await response.text(), /secret = 1/);
    });

    await t.step("a project that lists a package it never approved shows no screen", async () => {
      const other = join(env.project, "..", "unapproved");
      await Deno.mkdir(join(other, ".sync"), { recursive: true });
      await Deno.writeTextFile(
        join(other, ".sync", "extensions.json"),
        '{ "extensions": ["board"] }\n',
      );
      const response = await app.request(
        url(`/screens/board?project=${encodeURIComponent(other)}`),
        { headers: COOKIE },
      );
      assert.equal(response.status, 403);
      const call = await post("/api/screens/call", {
        project: other,
        id: "board",
        handler: "board.add",
      });
      assert.equal(call.status, 403);
    });

    await t.step(
      "POST /api/screens/call calls the package's own handler, occasion extension",
      async () => {
        const response = await post("/api/screens/call", {
          project: env.project,
          id: "board",
          handler: "board.add",
          payload: { title: "From the screen" },
        });
        assert.equal(response.status, 200);
        const answer = await response.json();
        assert.deepEqual(answer.value, { added: "From the screen" });
        assert.equal(answer.receipt.outcome, "ok");
        const [receipt] = await listReceipts(env.kv, env.project, { packageId: "board" });
        assert.equal(receipt.id, answer.receipt.id);
        assert.equal(receipt.handler, "board.add");
        assert.deepEqual(receipt.occasion, { kind: "extension" });
        assert.deepEqual(receipt.source, { kind: "person", via: "screen" });
      },
    );

    await t.step(
      "a handler of another package, or of a package without a screen, is refused",
      async () => {
        const foreign = await post("/api/screens/call", {
          project: env.project,
          id: "board",
          handler: "other.ping",
        });
        assert.equal(foreign.status, 404);
        assert.match((await foreign.json()).error, /board has no handler other\.ping/);
        const noScreen = await post("/api/screens/call", {
          project: env.project,
          id: "other",
          handler: "other.ping",
        });
        assert.equal(noScreen.status, 404);
        assert.match((await noScreen.json()).error, /other has no screen/);
        const receipts = await listReceipts(env.kv, env.project, { packageId: "other" });
        assert.equal(receipts.length, 1, "only the call made before, from the CLI");
      },
    );

    await t.step("POST /api/screens/memory reads as the package's handlers read", async () => {
      const list = await post("/api/screens/memory", {
        project: env.project,
        id: "board",
        read: "list",
        query: { kind: "board.item" },
      });
      assert.equal(list.status, 200);
      const { value } = await list.json();
      assert.deepEqual(value.records.map((r: { title: string }) => r.title), ["From the screen"]);
      const record = await post("/api/screens/memory", {
        project: env.project,
        id: "board",
        read: "record",
        key: "board.item/1",
      });
      assert.equal((await record.json()).value.title, "From the screen");
      const foreign = await post("/api/screens/memory", {
        project: env.project,
        id: "board",
        read: "list",
        query: { kind: "other.secret" },
      });
      assert.equal(foreign.status, 403);
      assert.equal((await foreign.json()).name, "MemoryAccessError");
      const malformed = await post("/api/screens/memory", {
        project: env.project,
        id: "board",
        read: "write",
      });
      assert.equal(malformed.status, 400);
    });

    await t.step("POST /api/screens/net reaches only the declared hosts", async () => {
      const response = await post("/api/screens/net", {
        project: env.project,
        id: "board",
        request: "https://undeclared.example/x",
      });
      assert.equal(response.status, 403);
      const body = await response.json();
      assert.equal(body.name, "PermissionDeniedError");
      assert.match(body.error, /undeclared\.example/);
    });

    await t.step(
      "once the package is removed, its document and its key's files are refused",
      async () => {
        await removePackage(env.host, "board", env.project);
        const document = await app.request(url(`/screens/board?project=${project}`), {
          headers: COOKIE,
        });
        assert.equal(document.status, 404);
        const module = await app.request(url(`/screen-files/${key}/index.js`));
        assert.equal(module.status, 404);
        assert.notEqual(await module.text(), BOARD_UI);
        const call = await post("/api/screens/call", {
          project: env.project,
          id: "board",
          handler: "board.add",
        });
        assert.equal(call.status, 404);
      },
    );
    assert.ok(boardDir);
  } finally {
    await env.close();
  }
});
