import assert from "node:assert/strict";
import { childEnvironment } from "../../runtime/supervisor/mod.ts";

Deno.test("`childEnvironment()` passes Sync's environment on without its own", async (t) => {
  const base = {
    PATH: "/usr/bin",
    HOME: "/home/ada",
    SYNC_HOME: "/home/ada/.sync",
    SYNC_PORT: "4321",
    SYNCED: "not Sync's",
    MY_TOKEN: "secret",
  };

  await t.step("removes SYNC_* and every variable holding a secret", () => {
    assert.deepEqual(childEnvironment(base, ["secret"]), {
      PATH: "/usr/bin",
      HOME: "/home/ada",
      SYNCED: "not Sync's",
    });
  });

  await t.step("an empty secret hides nothing", () => {
    assert.deepEqual(childEnvironment({ EMPTY: "", A: "a" }, [""]), { EMPTY: "", A: "a" });
  });

  await t.step("extra entries set, replace and remove variables, SYNC_* included", () => {
    assert.deepEqual(
      childEnvironment(base, ["secret"], {
        PATH: "/opt/bin:/usr/bin",
        HOME: null,
        SYNC_SESSION: "asked for",
        AGENT_KEY: "k",
      }),
      {
        PATH: "/opt/bin:/usr/bin",
        SYNCED: "not Sync's",
        SYNC_SESSION: "asked for",
        AGENT_KEY: "k",
      },
    );
  });
});
