import assert from "node:assert/strict";
import { createApp } from "../../../runtime/web/app.ts";
import type {
  ConnectResponse,
  DeviceResponse,
  DevicesResponse,
  RunResponse,
} from "../../../runtime/web/api/devices_types.ts";
import { appletEnv } from "../../internal/applets.ts";

const TOKEN = "d".repeat(48);
const ORIGIN = "http://127.0.0.1:4321";
const COOKIE = { cookie: `sync_token_4321=${TOKEN}` };

const SERVICE = `import { memory } from "@sync/extension-api/service";
export default function register() {
  return {
    "mail.sync": async () => {
      await memory.write({ key: "mail.message/1", title: "Hello" });
      return { coverage: { read: 1, of: null, failed: 0 } };
    },
  };
}`;

Deno.test("`devicesRoute()` lists and changes a project's devices", async (t) => {
  const applet = await appletEnv({ service: SERVICE });
  const { env, runner, folder } = applet;
  const app = createApp(env.host, { token: TOKEN, port: 4321, tasks: runner });
  const post = (action: string, body: Record<string, unknown>) =>
    app.request(`${ORIGIN}/api/devices/mail/${action}`, {
      method: "POST",
      headers: { ...COOKIE, origin: ORIGIN, "content-type": "application/json" },
      body: JSON.stringify({ project: env.project, ...body }),
    });
  try {
    await t.step("a device installed and not connected is dark", async () => {
      const response = await app.request(
        `${ORIGIN}/api/devices?project=${encodeURIComponent(env.project)}`,
        { headers: COOKIE },
      );
      assert.equal(response.status, 200);
      const body = await response.json() as DevicesResponse;
      assert.equal(body.devices.length, 1);
      assert.equal(body.devices[0].state, "disconnected");
      assert.equal(body.devices[0].lamp, "dark");
      assert.equal(body.devices[0].consent, null);
    });

    await t.step("connect refuses a relative folder with 400, naming it", async () => {
      const response = await post("connect", { kind: "folder", folder: "mail" });
      assert.equal(response.status, 400);
      const body = await response.json() as { error: string };
      assert.match(body.error, /mail is not an absolute path/);
    });

    await t.step("connect takes a folder; the device is ready", async () => {
      const response = await post("connect", { kind: "folder", folder });
      assert.equal(response.status, 200);
      const body = await response.json() as ConnectResponse;
      assert.equal(body.account.kind, "folder");
      assert.equal(body.device.state, "ready");
      assert.equal(body.device.lamp, "steady");
    });

    await t.step("run answers the attempt once it ended, with its coverage", async () => {
      const response = await post("run", {});
      assert.equal(response.status, 200);
      const body = await response.json() as RunResponse;
      assert.equal(body.attempt.outcome, "ok");
      assert.equal(body.attempt.trigger, "person");
      assert.equal(body.attempt.receipts.length, 1);
      assert.deepEqual(body.device.lastRead?.coverage, { read: 1, of: null, failed: 0 });
    });

    await t.step("pause: paused lamp, and run refused with 409", async () => {
      const paused = await (await post("pause", {})).json() as DeviceResponse;
      assert.equal(paused.device.lamp, "paused");
      const response = await post("run", {});
      assert.equal(response.status, 409);
      assert.match((await response.json() as { error: string }).error, /paused; resume it first/);
      const resumed = await (await post("resume", {})).json() as DeviceResponse;
      assert.equal(resumed.device.lamp, "steady");
    });

    await t.step("consent is granted and taken back", async () => {
      const granted = await (await post("consent", { endpoint: "http://127.0.0.1:11434" }))
        .json() as DeviceResponse;
      assert.equal(granted.device.consent?.endpoint, "http://127.0.0.1:11434");
      const revoked = await (await post("consent", { endpoint: null })).json() as DeviceResponse;
      assert.equal(revoked.device.consent, null);
    });

    await t.step("an unknown device is 404", async () => {
      const response = await app.request(`${ORIGIN}/api/devices/nope/pause`, {
        method: "POST",
        headers: { ...COOKIE, origin: ORIGIN, "content-type": "application/json" },
        body: JSON.stringify({ project: env.project }),
      });
      assert.equal(response.status, 404);
    });

    await t.step("disconnect: dark again, and no answer ever held a credential", async () => {
      const body = await (await post("disconnect", {})).json() as DeviceResponse;
      assert.equal(body.device.lamp, "dark");
      assert.equal(body.device.account, null);
    });
  } finally {
    await applet.close();
  }
});
