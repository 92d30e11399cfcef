import assert from "node:assert/strict";
import * as service from "../../runtime/extension_api/service.ts";
import * as ui from "../../runtime/extension_api/ui.ts";

Deno.test("`@sync/extension-api/ui` is versioned with the service API and holds only types", () => {
  assert.equal(ui.API_VERSION, service.API_VERSION);
  assert.deepEqual(Object.keys(ui), ["API_VERSION"]);
});
