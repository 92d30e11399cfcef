import assert from "node:assert/strict";
import { join } from "node:path";
import { createApp } from "../../../runtime/web/app.ts";
import type {
  ErrorResponse,
  ExtensionPageResponse,
  ExtensionsResponse,
  ProjectsResponse,
  RemoveResponse,
  SwitchResponse,
} from "../../../runtime/web/api/types.ts";
import { describeSchedule } from "../../../runtime/clock/mod.ts";
import { installPackage, openProject } from "../../../runtime/lifecycle/mod.ts";
import { listRecords } from "../../../runtime/memory/mod.ts";
import { testHost, writePackage } from "../../internal/packages.ts";

const TOKEN = "t".repeat(48);
const ORIGIN = "http://127.0.0.1:4321";
const HOSTILE = "<img src=x onerror=alert(1)>";

const TICK = {
  id: "tick",
  permissions: ["background", "schedule", "net:api.example.com"],
  handlers: ["tick.run", "tick.tidy"],
  service: `import { memory } from "@sync/extension-api/service";
export default function register() {
  return {
    "tick.run": () => memory.write({ key: "tick.beat/1", title: "beat" }),
    "tick.tidy": () => null,
  };
}`,
  types: { "beat.json": "tick.beat" },
  manifest: {
    description: "Keeps time for the project",
    schedule: [
      { handler: "tick.run", description: "Beats", every: "1h" },
      { handler: "tick.tidy", description: "Tidies up", every: "1d" },
    ],
    lifecycle: { removed: "tick.tidy" },
    prompt: "prompt/instructions.md",
  },
};

Deno.test("the Extensions API answers every route, and refuses bad input by name", async (t) => {
  const env = await testHost();
  const app = createApp(env.host, { token: TOKEN, port: 4321 });
  const get = (path: string) =>
    app.request(`${ORIGIN}${path}`, { headers: { cookie: `sync_token_4321=${TOKEN}` } });
  const post = (path: string, body: string, headers: Record<string, string> = {}) =>
    app.request(`${ORIGIN}${path}`, {
      method: "POST",
      headers: {
        cookie: `sync_token_4321=${TOKEN}`,
        origin: ORIGIN,
        "content-type": "application/json",
        ...headers,
      },
      body,
    });
  const q = (project: string) => `project=${encodeURIComponent(project)}`;
  const refused = async (response: Response, status: number, message: RegExp) => {
    assert.equal(response.status, status);
    const body = await response.json() as ErrorResponse;
    assert.match(body.error, message);
  };
  try {
    const dir = await writePackage(join(env.home, "..", "packages"), TICK);
    await Deno.mkdir(join(dir, "prompt"));
    await Deno.writeTextFile(
      join(dir, "prompt", "instructions.md"),
      `# Tick\n\nSay <b>when</b> it beats. ${HOSTILE}\n`,
    );
    await installPackage(env.host, dir, env.project, { approve: true });
    await env.install({
      id: "evil",
      handlers: ["evil.go"],
      service: `export default function register() { return { "evil.go": () => null }; }`,
      manifest: { name: HOSTILE, description: HOSTILE },
    });
    await env.call("tick", "tick.tidy");

    await t.step("GET /api/projects lists the scheduled and the recent projects", async () => {
      const response = await get("/api/projects");
      assert.equal(response.status, 200);
      const body = await response.json() as ProjectsResponse;
      assert.deepEqual(body.scheduled.map((p) => [p.path, p.gone]), [[env.project, false]]);
      assert.deepEqual(body.recent.map((p) => [p.path, p.gone]), [[env.project, false]]);
      assert.deepEqual(body.recent[0].extensionIds, ["evil", "tick"]);
    });

    await t.step("GET /api/projects says when a project's folder is gone", async () => {
      const other = await Deno.realPath(await Deno.makeTempDir({ prefix: "sync-gone-" }));
      await openProject(env.host, other);
      await Deno.remove(other, { recursive: true });
      const body = await (await get("/api/projects")).json() as ProjectsResponse;
      assert.deepEqual(body.recent.map((p) => [p.path, p.gone]), [
        [other, true],
        [env.project, false],
      ]);
    });

    await t.step("GET /api/extensions lists every package with its lamp", async () => {
      const response = await get(`/api/extensions?${q(env.project)}`);
      assert.equal(response.status, 200);
      const body = await response.json() as ExtensionsResponse;
      assert.equal(body.project, env.project);
      assert.deepEqual(
        body.extensions.map((e) => [e.id, e.version, e.lamp.state, e.hasScreen]),
        [["evil", "1.0.0", "steady", false], ["tick", "1.0.0", "steady", false]],
      );
      assert.equal(body.extensions[1].description, "Keeps time for the project");
    });

    await t.step("a package's markup comes back as the same plain string", async () => {
      const list = await (await get(`/api/extensions?${q(env.project)}`))
        .json() as ExtensionsResponse;
      assert.equal(list.extensions[0].name, HOSTILE);
      assert.equal(list.extensions[0].description, HOSTILE);
      const response = await get(`/api/extensions/evil?${q(env.project)}`);
      assert.match(response.headers.get("content-type") ?? "", /^application\/json/);
      const text = await response.text();
      // JSON carries it as a string; nothing is escaped into or out of markup.
      assert.ok(text.includes(JSON.stringify(HOSTILE)));
      const page = JSON.parse(text) as ExtensionPageResponse;
      assert.equal(page.name, HOSTILE);
      assert.equal(page.description, HOSTILE);
    });

    await t.step("GET /api/extensions/:id answers the page in order", async () => {
      const response = await get(`/api/extensions/tick?${q(env.project)}`);
      assert.equal(response.status, 200);
      const page = await response.json() as ExtensionPageResponse;
      assert.deepEqual(Object.keys(page), [
        "project",
        "id",
        "name",
        "version",
        "description",
        "lamp",
        "adds",
        "types",
        "prompt",
        "schedule",
        "receipts",
        "permissions",
        "update",
        "removal",
      ]);
      assert.equal(page.description, "Keeps time for the project");
      assert.deepEqual(page.adds, {
        handlers: [
          {
            name: "tick.run",
            description: "Does tick.run",
            agentTool: null,
            moments: [],
            input: null,
            runRefusal: null,
          },
          {
            name: "tick.tidy",
            description: "Does tick.tidy",
            agentTool: null,
            moments: ["removed"],
            input: null,
            runRefusal: "Sync runs tick.tidy when Tick is removed; it is not run by hand",
          },
        ],
        screen: null,
      });
      assert.deepEqual(page.types.map((type) => [type.file, type.kind]), [
        ["types/beat.json", "tick.beat"],
      ]);
      assert.deepEqual(page.prompt, {
        file: "prompt/instructions.md",
        text: `# Tick\n\nSay <b>when</b> it beats. ${HOSTILE}\n`,
      });
      assert.equal(page.schedule.on, true);
      assert.deepEqual(page.schedule.rows.map((row) => [row.handler, row.words, row.on]), [
        ["tick.run", "Beats, every hour", true],
        ["tick.tidy", "Tidies up, every day", true],
      ]);
      assert.equal(page.receipts.length, 1);
      assert.equal(page.receipts[0].handler, "tick.tidy");
      assert.equal(page.receipts[0].outcome, "ok");
      assert.deepEqual(page.receipts[0].occasion, { kind: "extension" });
      assert.ok(page.receipts[0].durationMs >= 0);
      assert.deepEqual(page.permissions.map((p) => p.text), [
        "may run handlers when nobody is looking",
        "may ask the clock to run its handlers on an interval",
        "may reach api.example.com over the network, through the host",
      ]);
      assert.equal(page.update, null);
      assert.ok(page.removal.stays.some((line) => /records stay/.test(line)));
      assert.ok(
        page.removal.goes.some((line) => /removed handler tick\.tidy runs first/.test(line)),
      );
    });

    await t.step("the page's receipts are newest first, as many as asked", async () => {
      await env.call("tick", "tick.run");
      const page = await (await get(`/api/extensions/tick?${q(env.project)}&receipts=1`))
        .json() as ExtensionPageResponse;
      assert.deepEqual(page.receipts.map((r) => r.handler), ["tick.run"]);
      await refused(
        await get(`/api/extensions/tick?${q(env.project)}&receipts=0`),
        400,
        /^receipts: expected a whole number from 1 to 500/,
      );
    });

    await t.step("POST /api/extensions/:id/switch turns the clock off and on", async () => {
      const off = await post(
        "/api/extensions/tick/switch",
        JSON.stringify({
          project: env.project,
          state: "off",
        }),
      );
      assert.equal(off.status, 200);
      const body = await off.json() as SwitchResponse;
      assert.deepEqual([body.id, body.state, body.lamp.state], ["tick", "off", "paused"]);
      // `sync schedule` reads the same state.
      const rows = await describeSchedule(env.kv, env.project, env.host);
      assert.deepEqual(rows.map((row) => row.on), [false, false]);
      const page = await (await get(`/api/extensions/tick?${q(env.project)}`))
        .json() as ExtensionPageResponse;
      assert.equal(page.schedule.on, false);
      assert.equal(page.schedule.rows[0].offNote, "Off for this project");
      const on = await post(
        "/api/extensions/tick/switch",
        JSON.stringify({
          project: env.project,
          state: "on",
        }),
      );
      assert.equal(((await on.json()) as SwitchResponse).lamp.state, "steady");
      const again = await describeSchedule(env.kv, env.project, env.host);
      assert.deepEqual(again.map((row) => row.on), [true, true]);
    });

    await t.step("a switch of a package with no schedule is refused by name", async () => {
      await refused(
        await post(
          "/api/extensions/evil/switch",
          JSON.stringify({
            project: env.project,
            state: "off",
          }),
        ),
        400,
        /evil has no schedule/,
      );
    });

    await t.step("bad input is refused with what was wrong and where", async () => {
      await refused(await get("/api/extensions"), 400, /^project: required/);
      await refused(await get("/api/extensions?project=relative/dir"), 400, /is relative/);
      await refused(await get("/api/extensions?project=/no/such/folder"), 404, /does not exist/);
      await refused(await get("/api/extensions/tick"), 400, /^project: required/);
      await refused(
        await get(`/api/extensions/nope?${q(env.project)}`),
        404,
        /nope is not installed/,
      );
      const switchBody = (body: unknown) =>
        post("/api/extensions/tick/switch", JSON.stringify(body));
      await refused(await post("/api/extensions/tick/switch", "{not json"), 400, /takes JSON/);
      await refused(await switchBody([1]), 400, /takes a JSON object/);
      await refused(await switchBody({ project: env.project }), 400, /"state" must be "off"/);
      await refused(
        await switchBody({ project: env.project, state: "maybe" }),
        400,
        /"state" must be "off" or "on", got "maybe"/,
      );
      await refused(await switchBody({ state: "off" }), 400, /^project: required/);
      await refused(
        await switchBody({ project: "rel", state: "off" }),
        400,
        /^project: "rel" is relative/,
      );
      await refused(
        await post(
          "/api/extensions/nope/switch",
          JSON.stringify({ project: env.project, state: "off" }),
        ),
        404,
        /nope is not installed/,
      );
      await refused(
        await post(
          "/api/extensions/tick/remove",
          JSON.stringify({ project: env.project, force: "yes" }),
        ),
        400,
        /"force" must be true or false/,
      );
      await refused(
        await post("/api/extensions/nope/remove", JSON.stringify({ project: env.project })),
        404,
        /nope is not installed/,
      );
      await refused(
        await post("/api/extensions/tick/switch", "project=x", {
          "content-type": "application/x-www-form-urlencoded",
        }),
        415,
        /takes a JSON body/,
      );
      await refused(
        await post(
          "/api/extensions/tick/remove",
          JSON.stringify({ project: env.project }),
          { origin: "https://evil.example" },
        ),
        403,
        /./,
      );
      // Nothing of the refused requests changed anything.
      assert.deepEqual(
        (await describeSchedule(env.kv, env.project, env.host)).map((row) => row.on),
        [true, true],
      );
      const list = await (await get(`/api/extensions?${q(env.project)}`))
        .json() as ExtensionsResponse;
      assert.deepEqual(list.extensions.map((e) => e.id), ["evil", "tick"]);
    });

    await t.step("a removed handler that fails refuses the removal; force removes", async () => {
      await Deno.writeTextFile(
        join(dir, "service", "index.js"),
        `import { memory } from "@sync/extension-api/service";
export default function register() {
  return {
    "tick.run": () => memory.write({ key: "tick.beat/1", title: "beat" }),
    "tick.tidy": () => { throw new Error("cannot tidy"); },
  };
}`,
      );
      await refused(
        await post("/api/extensions/tick/remove", JSON.stringify({ project: env.project })),
        422,
        /its removed handler tick\.tidy failed: .*cannot tidy/,
      );
      const red = await (await get(`/api/extensions/tick?${q(env.project)}`))
        .json() as ExtensionPageResponse;
      assert.equal(red.lamp.state, "red");
      assert.equal(red.lamp.notices[0].reason, "lifecycle-failed");
      const response = await post(
        "/api/extensions/tick/remove",
        JSON.stringify({ project: env.project, force: true }),
      );
      assert.equal(response.status, 200);
      const body = await response.json() as RemoveResponse;
      assert.equal(body.removed?.outcome, "failed");
      assert.ok(body.stays.some((line) => /records stay/.test(line)));
      assert.ok(
        body.went.some((line) => /leaves this project's \.sync\/extensions\.json/.test(line)),
      );
      const list = await (await get(`/api/extensions?${q(env.project)}`))
        .json() as ExtensionsResponse;
      assert.deepEqual(list.extensions.map((e) => e.id), ["evil"]);
      // Its records stay.
      const memory = await env.host.projectMemory(env.project);
      const { records } = await listRecords(memory, { kind: "tick.beat" });
      assert.deepEqual(records.map((record) => record.key), ["tick.beat/1"]);
    });
  } finally {
    await env.close();
  }
});
