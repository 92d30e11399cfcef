import assert from "node:assert/strict";
import { listAttempts } from "../../runtime/applets/mod.ts";
import { listReceipts, readReceiptConsole } from "../../runtime/host/mod.ts";
import { appletEnv } from "../internal/applets.ts";

const REFUSED = "tok-refused-4f1c";
const ACCEPTED = "tok-accepted-9b2e";

/** A service whose `mail.sync` fetches the account's items and says what it was answered. */
const FETCHING = `import { account } from "@sync/extension-api/service";
export default function register() {
  return {
    "mail.sync": async (payload, occasion) => {
      console.log("asked with", JSON.stringify(payload), JSON.stringify(occasion));
      try {
        const answer = await account.fetch("/api/items");
        console.log("answered", JSON.stringify(answer));
        return { answer, coverage: { read: 1, of: 1, failed: 0 } };
      } catch (error) {
        console.log("refused", error.name, error.message, JSON.stringify(error));
        throw error;
      }
    },
  };
}`;

Deno.test("`TaskRunner` turns a device whose credential is refused red with sign in again", async (t) => {
  const seen: (string | null)[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (request) => {
    const authorization = request.headers.get("authorization");
    seen.push(authorization);
    return authorization === `Bearer ${ACCEPTED}`
      ? Response.json({ items: ["one"] })
      : new Response("no", { status: 401 });
  });
  const origin = `http://127.0.0.1:${server.addr.port}`;
  const applet = await appletEnv({ service: FETCHING, account: "remote" });
  const { runner, env } = applet;
  /** Everything the handler left: its attempt, its receipts and their console. */
  const handlerSaw = async () => {
    const receipts = await listReceipts(env.kv, env.project, { packageId: "mail" });
    const consoles = await Promise.all(
      receipts.map((receipt) => readReceiptConsole(env.kv, env.project, "mail", receipt.id)),
    );
    const attempts = await listAttempts(env.kv, env.project, "mail", "sync", 50);
    return JSON.stringify({ receipts, consoles, attempts, logs: env.logs });
  };
  try {
    await runner.connect(env.project, "mail", { kind: "remote", origin, credential: REFUSED });

    await t.step("a 401 turns the device red, asking to sign in again", async () => {
      const attempt = await runner.runTask(env.project, "mail", "sync");
      assert.equal(attempt.outcome, "failed");
      assert.match(attempt.error!, /refused the account's credential \(401\)/);
      const shown = await runner.view(env.project, "mail");
      assert.equal(shown.state, "failed");
      assert.equal(shown.lamp, "red");
      assert.equal(shown.notice?.kind, "sign-in");
      assert.equal(shown.notice?.action, "connect");
      assert.match(shown.notice!.message, /Sign in again/);
    });

    await t.step("the server was sent the credential; the handler never saw it", async () => {
      assert.deepEqual(seen, [`Bearer ${REFUSED}`]);
      const saw = await handlerSaw();
      assert.match(saw, /refused SignInError/, "the handler's console was kept");
      assert.ok(!saw.includes(REFUSED));
    });

    await t.step(
      "connecting with a credential the server takes clears it; the next run is ok",
      async () => {
        await runner.connect(env.project, "mail", { kind: "remote", origin, credential: ACCEPTED });
        const cleared = await runner.view(env.project, "mail");
        assert.equal(cleared.notice, null);
        assert.equal(cleared.lamp, "steady");
        const attempt = await runner.runTask(env.project, "mail", "sync");
        assert.equal(attempt.outcome, "ok", attempt.error);
        assert.deepEqual(seen, [`Bearer ${REFUSED}`, `Bearer ${ACCEPTED}`]);
        const shown = await runner.view(env.project, "mail");
        assert.equal(shown.lamp, "steady");
        assert.equal(shown.notice, null);
        const saw = await handlerSaw();
        assert.match(saw, /answered/);
        assert.ok(!saw.includes(ACCEPTED) && !saw.includes(REFUSED));
      },
    );
  } finally {
    await applet.close();
    await server.shutdown();
  }
});
