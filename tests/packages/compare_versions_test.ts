import assert from "node:assert/strict";
import { compareVersions } from "../../runtime/packages/compare_versions.ts";

Deno.test("`compareVersions()` ranks versions by semver precedence", async (t) => {
  await t.step("major, minor and patch are numbers, not text", () => {
    assert.equal(compareVersions("0.1.0", "1.0.0"), -1);
    assert.equal(compareVersions("1.10.0", "1.9.0"), 1);
    assert.equal(compareVersions("2.0.0", "2.0.0"), 0);
  });
  await t.step("a pre-release ranks below its release, its identifiers one by one", () => {
    const ordered = [
      "1.0.0-alpha",
      "1.0.0-alpha.1",
      "1.0.0-alpha.beta",
      "1.0.0-beta",
      "1.0.0-beta.2",
      "1.0.0-beta.11",
      "1.0.0-rc.1",
      "1.0.0",
    ];
    for (let i = 0; i + 1 < ordered.length; i++) {
      assert.equal(compareVersions(ordered[i], ordered[i + 1]), -1, ordered[i]);
      assert.equal(compareVersions(ordered[i + 1], ordered[i]), 1, ordered[i + 1]);
    }
  });
  await t.step("build metadata does not count", () => {
    assert.equal(compareVersions("1.0.0+build.5", "1.0.0"), 0);
  });
});
