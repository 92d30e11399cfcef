import assert from "node:assert/strict";
import { SERVE_FLAGS } from "../../runtime/cli/serve_in_background.ts";

Deno.test("`SERVE_FLAGS` are the flags of `deno task serve`", () => {
  const config = JSON.parse(
    Deno.readTextFileSync(new URL("../../deno.json", import.meta.url)),
  ) as { tasks: Record<string, string> };
  assert.equal(["deno run", ...SERVE_FLAGS, "main.ts serve"].join(" "), config.tasks.serve);
});
