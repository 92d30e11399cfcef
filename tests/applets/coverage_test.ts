import assert from "node:assert/strict";
import { coverageOf, describeCoverage } from "../../runtime/applets/coverage.ts";
import { coverageWords } from "../../ui/devices/device_words.ts";

Deno.test("`coverageOf()` keeps what the items are called, in a few words of letters", async (t) => {
  const answer = (items: unknown) => ({ coverage: { read: 1, of: 2, failed: 0, items } });

  await t.step("the device's words are kept and said", () => {
    const coverage = coverageOf(answer({ one: "message", other: "messages" }))!;
    assert.deepEqual(coverage.items, { one: "message", other: "messages" });
    assert.equal(describeCoverage(coverage), "read 1 of 2 messages");
    assert.equal(
      describeCoverage({ ...coverage, read: 1204, of: 1210, failed: 6 }),
      "read 1,204 of 1,210 messages; 6 could not be parsed",
    );
    assert.equal(
      describeCoverage({ ...coverage, read: 1, of: null }),
      "read 1 message; total unknown",
    );
    assert.equal(
      coverageWords({ ...coverage, read: 1204, of: 1210, failed: 6 }),
      "Read 1,204 of 1,210 messages; 6 could not be parsed",
    );
    assert.equal(coverageWords({ ...coverage, of: 1 }), "Read 1 of 1 message");
  });

  await t.step("anything else is left out, and the items are items", () => {
    for (
      const junk of [
        "messages",
        { one: "message" },
        { one: 1, other: "messages" },
        { one: "<b>message</b>", other: "messages" },
        { one: "message", other: "m".repeat(41) },
        { one: " message", other: "messages" },
        { one: "message\u202e", other: "messages" },
      ]
    ) {
      const coverage = coverageOf(answer(junk))!;
      assert.equal(coverage.items, undefined, JSON.stringify(junk));
      assert.equal(describeCoverage(coverage), "read 1 of 2 items");
    }
  });
});
