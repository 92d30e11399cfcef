import assert from "node:assert/strict";
import * as service from "../../runtime/extension_api/service.ts";
import * as ui from "../../runtime/extension_api/ui.ts";

Deno.test("`@sync/extension-api/ui` is versioned with the service API and holds only types", () => {
  assert.equal(ui.API_VERSION, service.API_VERSION);
  assert.deepEqual(Object.keys(ui), ["API_VERSION"]);
});

Deno.test("the app gives screens the API's version", async () => {
  const frame = await Deno.readTextFile(
    new URL("../../ui/screens/screen_frame.tsx", import.meta.url),
  );
  assert.match(
    frame,
    new RegExp(`const API_VERSION = "${ui.API_VERSION.replaceAll(".", "\\.")}";`),
  );
});
