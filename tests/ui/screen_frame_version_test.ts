import assert from "node:assert/strict";
import { API_VERSION } from "../../runtime/extension_api/ui.ts";

Deno.test("the screen frame gives screens the extension API's own `API_VERSION`", async () => {
  const source = await Deno.readTextFile(
    new URL("../../ui/screens/screen_frame.tsx", import.meta.url),
  );
  const written = /^const API_VERSION = "([^"]+)";$/m.exec(source);
  assert.ok(written, "screen_frame.tsx writes out API_VERSION");
  assert.equal(written[1], API_VERSION);
});
