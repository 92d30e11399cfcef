import assert from "node:assert/strict";
import { testHost } from "../internal/packages.ts";

Deno.test("`callHandler()` calls a handler of a project that lists many packages", async (t) => {
  // Each listed package adds its approval and its ref to what the claim proves:
  // past ten keys, what the claim reads takes more than one read of Deno KV.
  for (const count of [6, 20, 40]) {
    await t.step(`${count} packages listed`, async () => {
      const env = await testHost();
      try {
        for (let i = 0; i < count; i++) {
          await env.install({
            id: `pkg${i}`,
            handlers: [`pkg${i}.ping`],
            service: `export default function register() {
  return { "pkg${i}.ping": () => "pong ${i}" };
}`,
          });
        }
        assert.equal(await env.call("pkg0", "pkg0.ping"), "pong 0");
        assert.equal(
          await env.call(`pkg${count - 1}`, `pkg${count - 1}.ping`),
          `pong ${count - 1}`,
        );
        assert.equal(await env.call("pkg0", "pkg0.ping"), "pong 0");
      } finally {
        await env.close();
      }
    });
  }
});
