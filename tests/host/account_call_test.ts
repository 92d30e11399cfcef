import assert from "node:assert/strict";
import { testHost } from "../internal/packages.ts";
import { loadPackage } from "../../runtime/packages/store.ts";
import type { LoadedPackage } from "../../runtime/packages/mod.ts";
import { rejectsWith } from "../internal/rejects_with.ts";
import { writeMaildir } from "../internal/fixture_sources/maildir.ts";

const SERVICE = `
import { account } from "@sync/extension-api/service";
export default function register() {
  return {
    "mail.sync": async () => {
      const { entries } = await account.list({ under: "cur" });
      const parsed = await account.parseMail(entries.map((e) => e.path).slice(0, 32));
      return parsed.map((p) => p.ok ? { path: p.path, subject: p.value.subject } : { path: p.path, reason: p.reason });
    },
  };
}`;

Deno.test("a task step's handler reads its account folder through the Host's parsers", async (t) => {
  const env = await testHost();
  const folder = await Deno.makeTempDir({ prefix: "sync-test-" });
  try {
    const truth = await writeMaildir(folder, { messages: 30, seed: 9 });
    const dir = await env.install({ id: "mail", handlers: ["mail.sync"], service: SERVICE });
    const loaded = await loadPackage({
      id: "mail",
      version: "1.0.0",
      source: "folder",
      dir,
      installedAt: new Date(0).toISOString(),
    });
    // The manifest as it will declare the account permission once connecting one is offered.
    const pkg: LoadedPackage = {
      ...loaded,
      manifest: { ...loaded.manifest, permissions: ["background", "account.folder"] },
    };
    const options = {
      occasion: { kind: "extension" as const },
      source: { kind: "person" as const },
      package: pkg,
    };

    await t.step("with the account, the handler's messages come back parsed", async () => {
      const { value } = await env.host.callHandler(env.project, "mail", "mail.sync", {
        ...options,
        account: { id: "acc-1", epoch: 0, kind: "folder", folder },
      });
      const inCur = truth.messages.filter((m) => m.path.startsWith("cur/"));
      const answers = value as { path: string; subject?: string }[];
      assert.equal(answers.length, Math.min(32, inCur.length));
      for (const answer of answers) {
        const message = inCur.find((m) => m.path === answer.path)!;
        if (message.subject !== null) assert.equal(answer.subject, message.subject);
      }
    });

    await t.step("without it, the same handler is refused in words", async () => {
      await rejectsWith(
        env.host.callHandler(env.project, "mail", "mail.sync", options),
        "HandlerFailedError",
        /account\.list\(\) needs the device's account: it works only in a device's task/,
      );
    });
  } finally {
    await env.close();
    await Deno.remove(folder, { recursive: true });
  }
});
