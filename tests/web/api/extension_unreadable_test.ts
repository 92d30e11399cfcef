import assert from "node:assert/strict";
import { join } from "node:path";
import { createApp } from "../../../runtime/web/app.ts";
import type {
  ErrorResponse,
  ExtensionsResponse,
  RemoveResponse,
  UnreadableExtensionResponse,
} from "../../../runtime/web/api/types.ts";
import { readDeclaredIds, writeDeclaredIds } from "../../../runtime/projects/mod.ts";
import { testHost } from "../../internal/packages.ts";

const TOKEN = "t".repeat(48);
const ORIGIN = "http://127.0.0.1:4321";

Deno.test("a listed package that cannot be read has a page that says why, and goes", async (t) => {
  const env = await testHost();
  const app = createApp(env.host, { token: TOKEN, port: 4321 });
  const cookie = `sync_token_4321=${TOKEN}`;
  const q = `project=${encodeURIComponent(env.project)}`;
  const page = (id: string) =>
    app.request(`${ORIGIN}/api/extensions/${id}?${q}`, { headers: { cookie } });
  const remove = (id: string) =>
    app.request(`${ORIGIN}/api/extensions/${id}/remove`, {
      method: "POST",
      headers: { cookie, origin: ORIGIN, "content-type": "application/json" },
      body: JSON.stringify({ project: env.project }),
    });
  try {
    const dir = await env.install({
      id: "hello",
      handlers: ["hello.greet", "hello.tidy"],
      service: `export default function register() {
  return { "hello.greet": () => "hi", "hello.tidy": () => null };
}`,
      manifest: { lifecycle: { removed: "hello.tidy" } },
    });
    await Deno.writeTextFile(join(dir, "manifest.json"), '{ broken: "json" }');

    await t.step("a linked folder whose manifest breaks: why, and the folder to fix", async () => {
      const response = await page("hello");
      assert.equal(response.status, 404);
      const body = await response.json() as UnreadableExtensionResponse;
      assert.equal(body.name, "NotFoundError");
      assert.match(body.error, /^hello cannot be read: Invalid manifest/);
      assert.equal(body.unreadable.id, "hello");
      assert.equal(body.unreadable.project, env.project);
      assert.equal(body.unreadable.state, "cannot-load");
      assert.match(body.unreadable.problem ?? "", /Invalid manifest .*manifest\.json/);
      assert.match(body.unreadable.problem ?? "", /not valid JSON/);
      assert.equal(body.unreadable.linkedFolder, dir);
      // Its removed handler cannot run, so the confirmation does not promise it.
      assert.ok(
        body.unreadable.removal.goes.includes("hello leaves this project's .sync/extensions.json."),
      );
      assert.ok(!body.unreadable.removal.goes.some((line) => /removed handler/.test(line)));
    });

    await t.step("it is removed all the same, saying no removed handler ran", async () => {
      const response = await remove("hello");
      assert.equal(response.status, 200);
      const body = await response.json() as RemoveResponse;
      assert.equal(body.removed, null);
      assert.match(body.notice ?? "", /^hello could not serve here, so no removed handler ran/);
      assert.deepEqual(await readDeclaredIds(env.project), []);
      const list = await (await app.request(`${ORIGIN}/api/extensions?${q}`, {
        headers: { cookie },
      })).json() as ExtensionsResponse;
      assert.deepEqual(list.extensions, []);
      // Gone now: a plain 404, with nothing to offer.
      const after = await page("hello");
      assert.equal(after.status, 404);
      const gone = await after.json() as ErrorResponse & { unreadable?: unknown };
      assert.match(gone.error, /hello is not installed in/);
      assert.equal(gone.unreadable, undefined);
    });

    await t.step("a package not on this machine: no folder, no problem, and it goes", async () => {
      await writeDeclaredIds(env.project, ["ghost"]);
      const response = await page("ghost");
      assert.equal(response.status, 404);
      const body = await response.json() as UnreadableExtensionResponse;
      assert.match(body.error, /ghost is listed in .* but is not on this machine/);
      assert.equal(body.unreadable.state, "not-on-machine");
      assert.equal(body.unreadable.problem, null);
      assert.equal(body.unreadable.linkedFolder, null);
      assert.equal((await remove("ghost")).status, 200);
      assert.deepEqual(await readDeclaredIds(env.project), []);
    });
  } finally {
    await env.close();
  }
});
