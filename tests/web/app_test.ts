import assert from "node:assert/strict";
import { createApp } from "../../runtime/web/app.ts";
import { testHost } from "../internal/packages.ts";

Deno.test("createApp() guards every request and serves receipts", async (t) => {
  const env = await testHost();
  const app = createApp(env.host, { token: "t".repeat(48), port: 4321 });
  const url = (path: string) => `http://127.0.0.1:4321${path}`;
  const token = "t".repeat(48);
  try {
    await t.step("a request without the token is refused", async () => {
      const response = await app.request(url("/api/health"));
      assert.equal(response.status, 401);
      assert.match((await response.json()).error, /token/);
    });
    await t.step("a foreign Host header is refused (DNS rebinding)", async () => {
      const response = await app.request(url(`/api/health?token=${token}`), {
        headers: { host: "attacker.example:4321" },
      });
      assert.equal(response.status, 403);
    });
    await t.step("the token in the URL sets an HttpOnly SameSite=Strict cookie", async () => {
      const response = await app.request(url(`/api/health?token=${token}`));
      assert.equal(response.status, 200);
      const cookie = response.headers.get("set-cookie") ?? "";
      assert.match(cookie, /sync_token_4321=t+/);
      assert.match(cookie, /HttpOnly/);
      assert.match(cookie, /SameSite=Strict/);
      const again = await app.request(url("/api/health"), {
        headers: { cookie: `sync_token_4321=${token}` },
      });
      assert.equal(again.status, 200);
    });
    await t.step("a state-changing request from another Origin is refused", async () => {
      const response = await app.request(url("/api/health"), {
        method: "POST",
        headers: { cookie: `sync_token_4321=${token}`, origin: "https://evil.example" },
      });
      assert.equal(response.status, 403);
    });
    await t.step("receipts of a project are served; a missing project is a 404", async () => {
      await env.install({
        id: "ping",
        handlers: ["ping.now"],
        service: `export default function register() { return { "ping.now": () => "pong" }; }`,
      });
      assert.equal(await env.call("ping", "ping.now"), "pong");
      const response = await app.request(
        url(`/api/receipts?project=${encodeURIComponent(env.project)}`),
        { headers: { cookie: `sync_token_4321=${token}` } },
      );
      assert.equal(response.status, 200);
      const { receipts } = await response.json();
      assert.equal(receipts[0].handler, "ping.now");
      assert.equal(receipts[0].outcome, "ok");
      const missing = await app.request(url("/api/receipts?project=/no/such/folder"), {
        headers: { cookie: `sync_token_4321=${token}` },
      });
      assert.equal(missing.status, 404);
    });
    await t.step("POST /api/projects/open opens a project and runs opened handlers", async () => {
      await env.install({
        id: "door",
        handlers: ["door.opened"],
        service: `import { memory } from "@sync/extension-api/service";
export default function register() {
  return { "door.opened": () => memory.write({ key: "door.visit/1", title: "opened" }) };
}`,
        manifest: { lifecycle: { opened: "door.opened" } },
      });
      const open = (body: string, origin = "http://127.0.0.1:4321") =>
        app.request(url("/api/projects/open"), {
          method: "POST",
          headers: {
            cookie: `sync_token_4321=${token}`,
            origin,
            "content-type": "application/json",
          },
          body,
        });
      const response = await open(JSON.stringify({ path: env.project }));
      assert.equal(response.status, 200);
      const result = await response.json();
      assert.deepEqual(result.project.extensionIds, ["door", "ping"]);
      assert.deepEqual(result.opened, [
        { packageId: "door", handler: "door.opened", moment: "opened", outcome: "ok" },
      ]);
      const bad = await open("{not json");
      assert.equal(bad.status, 400);
      assert.match((await bad.json()).error, /takes JSON: \{ "path"/);
      const missing = await open(JSON.stringify({ path: "/no/such/folder" }));
      assert.equal(missing.status, 404);
      const foreign = await open(JSON.stringify({ path: env.project }), "https://evil.example");
      assert.equal(foreign.status, 403);
    });
  } finally {
    await env.close();
  }
});
