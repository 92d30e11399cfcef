import assert from "node:assert/strict";
import { join } from "node:path";
import { exists, runSync } from "../internal/cli.ts";

Deno.test("`sync serve` refuses a home whose socket path is too long before it makes or prints anything", async () => {
  const root = await Deno.makeTempDir({ prefix: "sync-long-home-" });
  try {
    // Past the 108 bytes a socket's path may have, the socket's own name included.
    const home = join(root, "h".repeat(120));
    const result = await runSync(home, ["serve", "--port", "0"]);
    assert.equal(result.code, 1, result.stderr);
    assert.match(
      result.stderr,
      /^sync serve: .*Cannot serve the installation in .*: sync serve answers the CLI on the socket .*owner\.sock, whose path is \d+ bytes, longer than this system allows for a socket \(\d+\); set SYNC_HOME to a shorter folder/,
    );
    assert.doesNotMatch(result.stdout, /Sync is serving/, "no address that answers nothing");
    assert.equal(await exists(home), false, "the installation folder is not made");
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
