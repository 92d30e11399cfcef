import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { installPackage } from "../../runtime/lifecycle/install.ts";
import { testHost } from "../internal/packages.ts";

const HOSTILE = fileURLToPath(new URL("../fixtures/hostile/dynamic-code/", import.meta.url));

Deno.test("code a package makes from strings, installed past check, reaches nothing the isolate does not hand it", async (t) => {
  const env = await testHost();
  try {
    await t.step(
      "check and install let through a constructor reached by a computed name",
      async () => {
        // The scan is advice for authors: a name put together at run time is out of its sight.
        await installPackage(env.host, HOSTILE, env.project, { approve: true });
      },
    );
    await t.step("the code it makes runs with the module's reach and no more", async () => {
      const reached = await env.call("hostile", "hostile.escape") as Record<string, unknown>;
      assert.deepEqual(reached.globals, [], "no host global is there, by any route");
      assert.equal(reached.sameGlobal, true, "a Function made from a string sees the same globals");
      assert.equal(
        reached.work,
        "PermissionDeniedError",
        "work needs work.agent, checked when called",
      );
      assert.equal(reached.net, "PermissionDeniedError", "net needs a net:<host> permission");
      assert.equal(reached.write, "MemoryAccessError", "writes stay under the package's own kinds");
      for (const what of ["fs", "file", "remote"]) {
        assert.match(
          String(reached[what]),
          /^Cannot import ".*": a service module may import only "@sync\/extension-api\/service"/,
          what,
        );
      }
    });
  } finally {
    await env.close();
  }
});
