import assert from "node:assert/strict";
import { join } from "node:path";
import { installPackage } from "../../../runtime/lifecycle/mod.ts";
import { readApproval, readPackageRef } from "../../../runtime/packages/mod.ts";
import type { InstallAnswer } from "../../../runtime/web/api/events_types.ts";
import type { ErrorResponse, ExtensionPageResponse } from "../../../runtime/web/api/types.ts";
import { createApp } from "../../../runtime/web/app.ts";
import { packageArchive } from "../../internal/cli.ts";
import { testHost } from "../../internal/packages.ts";

const TOKEN = "t".repeat(48);
const ORIGIN = "http://127.0.0.1:4321";
const HEADERS = { cookie: `sync_token_4321=${TOKEN}`, origin: ORIGIN };

const SERVICE = (version: string, installed = "null") =>
  `import { memory } from "@sync/extension-api/service";
export default function register() {
  return {
    "feed.poll": () => ${JSON.stringify(version)},
    "feed.setup": () => ${installed},
  };
}`;

Deno.test("POST /api/extensions/:id/approve approves the update that waits", async (t) => {
  const env = await testHost();
  const app = createApp(env.host, { token: TOKEN, port: 4321 });
  const archives = join(env.home, "..", "archives");
  await Deno.mkdir(archives, { recursive: true });
  const archive = async (version: string, permissions: string[], installed?: string) => {
    const path = join(archives, `feed-${version}.tgz`);
    await Deno.writeFile(
      path,
      packageArchive({
        id: "feed",
        version,
        permissions,
        handlers: ["feed.poll", "feed.setup"],
        service: SERVICE(version, installed),
        manifest: { lifecycle: { installed: "feed.setup" } },
      }),
    );
    return path;
  };
  const post = (path: string, body: string, headers: Record<string, string> = HEADERS) =>
    app.request(`${ORIGIN}${path}`, {
      method: "POST",
      headers: { ...headers, "content-type": "application/json" },
      body,
    });
  const approve = (id: string, project: unknown = env.project) =>
    post(`/api/extensions/${id}/approve`, JSON.stringify({ project }));
  const page = async () => {
    const response = await app.request(
      `${ORIGIN}/api/extensions/feed?project=${encodeURIComponent(env.project)}`,
      { headers: HEADERS },
    );
    return await response.json() as ExtensionPageResponse;
  };
  const refused = async (response: Response, status: number, message: RegExp) => {
    const body = await response.json() as ErrorResponse;
    assert.equal(response.status, status, body.error);
    assert.match(body.error, message);
    return body;
  };
  try {
    await installPackage(env.host, await archive("1.0.0", ["background"]), env.project, {
      approve: true,
    });
    const wider = await archive("1.1.0", ["background", "net:api.example.com"]);
    await assert.rejects(
      installPackage(env.host, wider, env.project),
      (error: Error) => error.name === "ApprovalRequiredError",
    );

    await t.step("the page shows the update and only what it widens", async () => {
      const shown = await page();
      assert.equal(shown.version, "1.0.0");
      assert.deepEqual(shown.update, {
        version: "1.1.0",
        widened: [{
          permission: "net:api.example.com",
          text: "may reach api.example.com over the network, through the host",
          wide: false,
        }],
        serves: "1.0.0",
      });
      assert.equal(await env.call("feed", "feed.poll"), "1.0.0");
    });

    await t.step("a body that is not a JSON object with the project is refused", async () => {
      await refused(
        await post("/api/extensions/feed/approve", "not json"),
        400,
        /takes JSON: \{ "project"/,
      );
      await refused(
        await post("/api/extensions/feed/approve", "[]"),
        400,
        /takes a JSON object/,
      );
      await refused(await post("/api/extensions/feed/approve", "{}"), 400, /project: required/);
      await refused(await approve("feed", "relative/folder"), 400, /is relative/);
      assert.equal((await readApproval(env.kv, env.project, "feed"))?.version, "1.0.0");
    });

    await t.step("a request from another origin is refused before anything runs", async () => {
      const response = await post(
        "/api/extensions/feed/approve",
        JSON.stringify({ project: env.project }),
        { ...HEADERS, origin: "http://evil.example" },
      );
      assert.equal(response.status, 403);
      assert.equal((await readApproval(env.kv, env.project, "feed"))?.version, "1.0.0");
    });

    await t.step("an id the project does not list is refused with 404", async () => {
      await refused(await approve("nothere"), 404, /Cannot approve nothere: it is not installed/);
    });

    await t.step("a failing installed handler approves nothing and says why", async () => {
      const failing = await archive(
        "1.2.0",
        ["background", "net:api.example.com"],
        '(() => { throw new Error("no setup today"); })()',
      );
      await assert.rejects(installPackage(env.host, failing, env.project));
      const body = await refused(
        await approve("feed"),
        422,
        /installed handler feed\.setup failed/,
      );
      assert.equal(body.name, "LifecycleFailedError");
      assert.match(body.error, /no setup today/);
      assert.match(body.error, /Nothing was approved; feed@1\.0\.0 keeps serving/);
      assert.equal((await readApproval(env.kv, env.project, "feed"))?.version, "1.0.0");
      assert.equal((await page()).update?.version, "1.2.0");
      // The update the page showed is put back for the next steps (an older version: replaced).
      await assert.rejects(installPackage(env.host, wider, env.project, { replace: true }));
      assert.equal((await page()).update?.version, "1.1.0");
    });

    await t.step("approving takes the stored archive; its ref stays the archive's", async () => {
      const before = await readPackageRef(env.kv, "feed");
      assert.equal(before?.source, "archive");
      const subscription = env.host.events.subscribe({ project: env.project });
      const response = await approve("feed");
      assert.equal(response.status, 200);
      const answer = await response.json() as InstallAnswer;
      assert.equal(answer.version, "1.1.0");
      assert.equal(answer.from, "archive");
      assert.equal(answer.dir, before?.dir);
      assert.deepEqual(answer.approved, ["net:api.example.com"]);
      assert.deepEqual(answer.installed, {
        packageId: "feed",
        handler: "feed.setup",
        moment: "installed",
        outcome: "ok",
      });
      assert.deepEqual(answer.lines, [
        `Installed feed@1.1.0 (archive: ${before?.dir}) into ${env.project}`,
        "Approved: net:api.example.com",
        "Ran its installed handler feed.setup: ok",
      ]);
      assert.deepEqual(await readPackageRef(env.kv, "feed"), before);
      const approval = await readApproval(env.kv, env.project, "feed");
      assert.equal(approval?.version, "1.1.0");
      assert.deepEqual(approval?.ref, before);
      const events = [];
      for (let event; (event = await subscription.next(0));) events.push(event);
      subscription.close();
      assert.ok(
        events.some((event) =>
          event.type === "installed" && event.packageId === "feed" && event.version === "1.1.0" &&
          !event.waitingForApproval
        ),
        JSON.stringify(events),
      );
      const shown = await page();
      assert.equal(shown.update, null);
      assert.equal(shown.version, "1.1.0");
      assert.equal(shown.lamp.state, "steady");
      assert.equal(await env.call("feed", "feed.poll"), "1.1.0");
    });

    await t.step("with nothing waiting, approving is refused with 409", async () => {
      await refused(await approve("feed"), 409, /no update waits for approval; feed@1\.1\.0/);
    });
  } finally {
    await env.close();
  }
});
