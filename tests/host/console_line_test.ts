import assert from "node:assert/strict";
import { consoleLine } from "../../runtime/host/console_line.ts";

Deno.test("`consoleLine()` prints one console entry as one line of its package", () => {
  assert.equal(consoleLine("box", "log", "hello"), "[box] hello");
  assert.equal(consoleLine("box", "warn", "careful"), "[box] warn: careful");
  assert.equal(
    consoleLine("box", "log", "a\n[other] forged line\u001b]0;title\u0007"),
    String.raw`[box] a\n[other] forged line\u001b]0;title\u0007`,
  );
});

Deno.test("a console line longer than its limit is cut with a visible mark, never silently", async () => {
  const { testHost } = await import("../internal/packages.ts");
  const { DEFAULT_LIMITS } = await import("../../runtime/limits.ts");
  const env = await testHost();
  try {
    await env.install({
      id: "chatty",
      handlers: ["chatty.run"],
      service: `export default function register() {
  return { "chatty.run": () => { console.log("y".repeat(10000)); console.log("short"); return 1; } };
}`,
    });
    await env.call("chatty", "chatty.run");
    const [long, short] = env.logs.filter((line) => line.startsWith("[chatty]"));
    const text = long.replace(/^\[chatty\] /, "");
    assert.ok(text.length <= DEFAULT_LIMITS.maxConsoleLineChars, `${text.length} characters`);
    assert.match(text, /^y+… \[cut: \d,\d{3} more characters\]$/);
    assert.equal(short, "[chatty] short");
  } finally {
    await env.close();
  }
});
