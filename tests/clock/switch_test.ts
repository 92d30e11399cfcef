import assert from "node:assert/strict";
import { join } from "node:path";
import { isSwitchedOff, listSwitchedOff, switchOff, switchOn } from "../../runtime/clock/switch.ts";
import { clockOffKey } from "../../runtime/clock/keys.ts";
import { readGeneration } from "../../runtime/memory/generation.ts";
import { InvalidInputError, NotFoundError } from "../../runtime/errors.ts";

const T0 = Date.UTC(2030, 0, 1, 9, 0, 0);

/** A temp folder with two projects, the installation KV, and a memory KV per project. */
async function setup() {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "sync-switch-" }));
  const alpha = join(root, "alpha");
  const beta = join(root, "beta");
  await Deno.mkdir(alpha);
  await Deno.mkdir(beta);
  const kv = await Deno.openKv(":memory:");
  const memories = new Map<string, Deno.Kv>();
  let t = T0;
  const options = {
    now: () => t,
    async projectMemory(project: string): Promise<Deno.Kv> {
      if (!memories.has(project)) memories.set(project, await Deno.openKv(":memory:"));
      return memories.get(project)!;
    },
  };
  return {
    root,
    alpha,
    beta,
    kv,
    memories,
    options,
    advance: (ms: number) => t += ms,
    async close() {
      kv.close();
      for (const memory of memories.values()) memory.close();
      await Deno.remove(root, { recursive: true });
    },
  };
}

Deno.test("`switchOff()` stores the one exception and fences running calls", async (t) => {
  const s = await setup();
  try {
    await t.step("it keys the exception by the project's real path, with when", async () => {
      await switchOff(s.kv, `${s.alpha}/../alpha`, "tracker", s.options);
      assert.deepEqual((await s.kv.get(clockOffKey(s.alpha, "tracker"))).value, {
        switchedOffAt: new Date(T0).toISOString(),
      });
      assert.equal(await isSwitchedOff(s.kv, s.alpha, "tracker"), true);
    });

    await t.step("it moves the package's generation on in that project's memory", async () => {
      assert.deepEqual([...s.memories.keys()], [s.alpha]);
      assert.equal((await readGeneration(s.memories.get(s.alpha)!, "tracker")).value, 1);
    });

    await t.step("switching off again keeps when it was first switched off", async () => {
      s.advance(60_000);
      await switchOff(s.kv, s.alpha, "tracker", s.options);
      assert.deepEqual((await s.kv.get(clockOffKey(s.alpha, "tracker"))).value, {
        switchedOffAt: new Date(T0).toISOString(),
      });
      assert.equal(
        (await readGeneration(s.memories.get(s.alpha)!, "tracker")).value,
        2,
        "a call started since is fenced too",
      );
    });

    await t.step("the switch is per package and per project", async () => {
      assert.equal(await isSwitchedOff(s.kv, s.alpha, "mail"), false);
      assert.equal(await isSwitchedOff(s.kv, s.beta, "tracker"), false);
    });

    await t.step("a folder that does not exist is refused, and nothing is written", async () => {
      const missing = join(s.root, "missing");
      await assert.rejects(
        switchOff(s.kv, missing, "tracker", s.options),
        (error) =>
          error instanceof NotFoundError &&
          error.message === `Cannot open project ${missing}: the folder does not exist; ` +
              `check the path, or create the folder first`,
      );
      assert.equal(await isSwitchedOff(s.kv, missing, "tracker"), false);
      assert.equal(s.memories.has(missing), false);
    });

    await t.step("an empty id is refused", async () => {
      await assert.rejects(
        switchOff(s.kv, s.alpha, "", s.options),
        (error) =>
          error instanceof InvalidInputError &&
          error.message === "A package id must be a non-empty string, got an empty string.",
      );
    });
  } finally {
    await s.close();
  }
});

Deno.test("`switchOn()` removes the exception rather than storing on", async (t) => {
  const s = await setup();
  try {
    await t.step("on deletes the entry, leaving nothing stored", async () => {
      await switchOff(s.kv, s.alpha, "tracker", s.options);
      await switchOn(s.kv, `${s.alpha}/../alpha`, "tracker");
      assert.equal(await isSwitchedOff(s.kv, s.alpha, "tracker"), false);
      assert.equal((await s.kv.get(clockOffKey(s.alpha, "tracker"))).versionstamp, null);
      let stored = 0;
      for await (const _ of s.kv.list({ prefix: ["clock_off"] })) stored++;
      assert.equal(stored, 0);
    });

    await t.step("switching on what was never off is harmless", async () => {
      await switchOn(s.kv, s.beta, "tracker");
      assert.equal(await isSwitchedOff(s.kv, s.beta, "tracker"), false);
    });

    await t.step("a project folder that is gone is switched on by its path", async () => {
      await switchOff(s.kv, s.beta, "tracker", s.options);
      await Deno.remove(s.beta);
      await switchOn(s.kv, s.beta, "tracker");
      assert.equal(await isSwitchedOff(s.kv, s.beta, "tracker"), false);
    });

    await t.step("an empty id is refused", async () => {
      await assert.rejects(
        switchOn(s.kv, s.alpha, ""),
        (error) =>
          error instanceof InvalidInputError &&
          error.message === "A package id must be a non-empty string, got an empty string.",
      );
    });
  } finally {
    await s.close();
  }
});

Deno.test("`listSwitchedOff()` lists the ids switched off in one project", async (t) => {
  const s = await setup();
  try {
    await t.step("none while nothing is off", async () => {
      assert.deepEqual(await listSwitchedOff(s.kv, s.alpha), []);
    });

    await t.step("each id off in the project, not those of another", async () => {
      await switchOff(s.kv, s.alpha, "tracker", s.options);
      await switchOff(s.kv, s.alpha, "mail", s.options);
      await switchOff(s.kv, s.beta, "calendar", s.options);
      assert.deepEqual(await listSwitchedOff(s.kv, s.alpha), ["mail", "tracker"]);
      assert.deepEqual(await listSwitchedOff(s.kv, s.beta), ["calendar"]);
      await switchOn(s.kv, s.alpha, "mail");
      assert.deepEqual(await listSwitchedOff(s.kv, s.alpha), ["tracker"]);
    });
  } finally {
    await s.close();
  }
});
