import assert from "node:assert/strict";
import { removePackage } from "../../runtime/lifecycle/mod.ts";
import { getRecord } from "../../runtime/memory/mod.ts";
import { appletEnv } from "../internal/applets.ts";

const WRITES = `import { memory } from "@sync/extension-api/service";
export default function register() {
  return {
    "mail.sync": async () => {
      await memory.write({ key: "mail.message/1", title: "m" });
      return { coverage: { read: 1, of: 1, failed: 0 } };
    },
  };
}`;

Deno.test("`removePackage()` forgets the device's account, credential, consent, tasks and attempts", async () => {
  const applet = await appletEnv({ service: WRITES, account: "remote" });
  const { runner, env } = applet;
  try {
    await runner.connect(env.project, "mail", {
      kind: "remote",
      origin: "https://mail.example",
      credential: "token",
    });
    await runner.grantConsent(env.project, "mail", "http://127.0.0.1:11434");
    await runner.runTask(env.project, "mail", "sync");
    await runner.pause(env.project, "mail");
    await removePackage(env.host, "mail", env.project);
    const left: Deno.KvKey[] = [];
    for (
      const head of ["account", "account_credential", "consent", "device", "task", "task_attempt"]
    ) {
      for await (const entry of env.kv.list({ prefix: [head, env.project, "mail"] })) {
        left.push(entry.key);
      }
    }
    assert.deepEqual(left, []);
    const memory = await env.host.projectMemory(env.project);
    assert.notEqual(await getRecord(memory, "mail.message/1"), null, "what it read stays");
  } finally {
    await applet.close();
  }
});
