import assert from "node:assert/strict";
import { isWidePermission } from "../../runtime/packages/wide_permission.ts";

Deno.test("`isWidePermission()` marks what reaches past what Sync guards", async (t) => {
  await t.step("programs run with full user access", () => {
    assert.equal(isWidePermission("host.processes"), true);
    assert.equal(isWidePermission("process:tail tail -F log"), true);
  });
  await t.step("servers on this machine or the local network", () => {
    for (
      const host of [
        "localhost",
        "db.localhost",
        "printer.local",
        "127.0.0.1:8080",
        "10.1.2.3",
        "172.16.0.1",
        "172.31.255.255",
        "192.168.1.10",
        "169.254.169.254",
      ]
    ) {
      assert.equal(isWidePermission(`net:${host}`), true, host);
    }
  });
  await t.step("a named host on the internet, and the host's own permissions, are not", () => {
    for (
      const permission of [
        "net:api.example.com",
        "net:172.32.0.1",
        "net:8.8.8.8",
        "background",
        "schedule",
        "work.agent",
      ]
    ) {
      assert.equal(isWidePermission(permission), false, permission);
    }
  });
});
