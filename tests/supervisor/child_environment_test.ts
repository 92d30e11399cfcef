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

  await t.step("a variable named __proto__ is passed, set and removed like any other", () => {
    const passed = childEnvironment(JSON.parse('{"__proto__": "a", "A": "a"}'), []);
    assert.deepEqual(Object.entries(passed), [["__proto__", "a"], ["A", "a"]]);
    const set = childEnvironment({ A: "a" }, [], JSON.parse('{"__proto__": "b"}'));
    assert.deepEqual(Object.entries(set), [["A", "a"], ["__proto__", "b"]]);
    assert.equal(Object.getPrototypeOf(set), Object.prototype);
    const removed = childEnvironment(passed, [], JSON.parse('{"__proto__": null}'));
    assert.deepEqual(Object.entries(removed), [["A", "a"]]);
    assert.equal(Object.getPrototypeOf(removed), Object.prototype);
  });
});
