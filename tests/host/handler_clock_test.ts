import assert from "node:assert/strict";
import { testHost } from "../internal/packages.ts";

Deno.test("`Host.callHandler()` runs a handler at the host's time, going on from there", async () => {
  const at = Date.UTC(2027, 2, 1);
  const env = await testHost({ now: () => at });
  try {
    await env.install({
      id: "clock",
      handlers: ["clock.now"],
      service: `export default function register() {
  return {
    "clock.now": () => {
      const first = Date.now();
      const until = first + 20;
      while (Date.now() < until) { /* the clock goes on */ }
      return { first, later: Date.now(), date: new Date().toISOString() };
    },
  };
}
`,
    });
    const seen = await env.call("clock", "clock.now") as {
      first: number;
      later: number;
      date: string;
    };
    assert.ok(seen.first >= at && seen.first < at + 5_000, `the handler read ${seen.first}`);
    assert.ok(seen.later >= seen.first + 20);
    assert.equal(seen.date.slice(0, 10), "2027-03-01");
  } finally {
    await env.close();
  }
});
