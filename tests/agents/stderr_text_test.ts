/** An agent's stderr as a failure keeps it: plain text, without npm's lines of its requests. */
import assert from "node:assert/strict";
import { keptStderr, lastLine, plainText } from "../../runtime/agents/stderr_text.ts";

Deno.test("`keptStderr()` keeps what the agent said, as plain text", async (t) => {
  await t.step("terminal escapes and control characters are removed", () => {
    assert.equal(
      keptStderr("\x1b[2m2026-12-01\x1b[0m \x1b[31mERROR\x1b[0m failed\x07\n"),
      "2026-12-01 ERROR failed\n",
    );
  });
  await t.step("npm's lines of its requests are left out, its errors kept", () => {
    const raw = [
      "npm http fetch GET 200 https://registry.npmjs.org/@google%2fgemini-cli 90ms (cache stale)",
      "npm error code ENOTCACHED",
      "npm http fetch GET 200 https://registry.npmjs.org/semver/-/semver-7.6.3.tgz 49ms (cache miss)",
      "",
    ].join("\n");
    assert.equal(keptStderr(raw), "npm error code ENOTCACHED\n");
  });
  await t.step("a line rewritten with carriage returns is kept as it ended", () => {
    assert.equal(plainText("10%\r50%\r100%\r\n"), "100%\n");
  });
});

Deno.test("`lastLine()` gives the last line that says anything, cut short", async (t) => {
  await t.step("blank lines at the end are passed over", () => {
    assert.equal(lastLine("first\n  second  \n\n \n", 300), "second");
  });
  await t.step("a long line is cut, saying so", () => {
    assert.equal(lastLine("y".repeat(10), 5), "yyyy…");
  });
  await t.step("nothing said is null", () => {
    assert.equal(lastLine("\n \n", 300), null);
  });
});
