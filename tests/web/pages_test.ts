import assert from "node:assert/strict";
import { createApp } from "../../runtime/web/app.ts";
import { testHost } from "../internal/packages.ts";

const TOKEN = "p".repeat(48);
const COOKIE = { cookie: `sync_token_4321=${TOKEN}` };

function url(path: string): string {
  return `http://127.0.0.1:4321${path}`;
}

Deno.test("pageRoutes() serves the app's page and bundle under the page's policy", async (t) => {
  const env = await testHost();
  const app = createApp(env.host, { token: TOKEN, port: 4321 });
  try {
    await t.step(
      "the printed address sets the cookie and drops the token from the address",
      async () => {
        const response = await app.request(url(`/?token=${TOKEN}`));
        assert.equal(response.status, 303);
        assert.equal(response.headers.get("location"), "/");
        assert.match(response.headers.get("set-cookie") ?? "", /sync_token_4321=p+; .*HttpOnly/);
        const deep = await app.request(url(`/p/%2Ftmp%2Fx/extensions/a?token=${TOKEN}`));
        assert.equal(deep.headers.get("location"), "/p/%2Ftmp%2Fx/extensions/a");
      },
    );
    await t.step("every page address answers the one page, with no inline script", async () => {
      for (
        const path of ["/", "/p/%2Ftmp%2Fx/extensions", "/p/%2Ftmp%2Fx/extensions/a", "/p/x/chat"]
      ) {
        const response = await app.request(url(path), { headers: COOKIE });
        assert.equal(response.status, 200, path);
        assert.match(response.headers.get("content-type") ?? "", /^text\/html/);
        const html = await response.text();
        assert.match(html, /<script type="module" src="\/assets\/app.js"><\/script>/);
        // Every script is a file: none carries code between its tags.
        for (const [, body] of html.matchAll(/<script[^>]*>([\s\S]*?)<\/script>/g)) {
          assert.equal(body.trim(), "", `${path} has an inline script`);
        }
      }
    });
    await t.step(
      "the page's policy allows only this origin's files and no inline script",
      async () => {
        const response = await app.request(url("/"), { headers: COOKIE });
        const policy = response.headers.get("content-security-policy") ?? "";
        assert.match(policy, /default-src 'self'/);
        assert.match(policy, /script-src 'self'(;|$)/);
        assert.match(policy, /object-src 'none'/);
        assert.match(policy, /frame-ancestors 'none'/);
        assert.doesNotMatch(policy, /unsafe-inline|unsafe-eval/);
        const api = await app.request(url("/api/health"), { headers: COOKIE });
        assert.match(api.headers.get("content-security-policy") ?? "", /default-src 'self'/);
      },
    );
    await t.step("the bundle is served with its media types; nothing else is", async () => {
      const script = await app.request(url("/assets/app.js"), { headers: COOKIE });
      assert.equal(script.status, 200);
      assert.match(script.headers.get("content-type") ?? "", /^text\/javascript/);
      const committed = await Deno.readTextFile(new URL("../../ui/dist/app.js", import.meta.url));
      assert.equal(await script.text(), committed);
      const styles = await app.request(url("/assets/app.css"), { headers: COOKIE });
      assert.match(styles.headers.get("content-type") ?? "", /^text\/css/);
      await styles.body?.cancel();
      for (
        const path of ["/assets/index.html", "/assets/..%2Fmain.tsx", "/assets/%2e%2e%2fdeno.json"]
      ) {
        const refused = await app.request(url(path), { headers: COOKIE });
        assert.equal(refused.status, 404, path);
        assert.match((await refused.json()).error, /No such file/);
      }
    });
    await t.step("a page without the token says, as a page, which address to open", async () => {
      const response = await app.request(url("/"), { headers: { accept: "text/html" } });
      assert.equal(response.status, 401);
      assert.match(response.headers.get("content-type") ?? "", /^text\/html/);
      const html = await response.text();
      assert.match(html, /deno task serve/);
      assert.doesNotMatch(html, /<script/);
      const asset = await app.request(url("/assets/app.js"));
      assert.equal(asset.status, 401);
      assert.match((await asset.json()).error, /token/);
    });
    await t.step("a bundle not built is named, with what to run", async () => {
      const empty = await Deno.makeTempDir();
      try {
        await Deno.writeTextFile(`${empty}/index.html`, "<!doctype html>");
        const bare = createApp(env.host, {
          token: TOKEN,
          port: 4321,
          uiDir: new URL(`file://${empty}/`),
        });
        const response = await bare.request(url("/assets/app.js"), { headers: COOKIE });
        assert.equal(response.status, 404);
        assert.match((await response.json()).error, /deno task build:ui/);
      } finally {
        await Deno.remove(empty, { recursive: true });
      }
    });
  } finally {
    await env.close();
  }
});
