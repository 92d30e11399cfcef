import assert from "node:assert/strict";
import { join } from "node:path";
import { groupCommits } from "../../runtime/internal/group_commits.ts";
import { openInstallation } from "../../runtime/projects/home.ts";
import { openProjectMemory } from "../../runtime/memory/store.ts";

type Outcome = Deno.KvCommitResult | Deno.KvCommitError;

/** Commits made at once: the first goes alone, the rest wait for it. */
function allAtOnce(ops: Deno.AtomicOperation[]): Promise<Outcome[]> {
  return Promise.all(ops.map((op) => op.commit()));
}

/** Distinct versionstamps of the commits that went through: one per SQLite transaction. */
function transactions(outcomes: Outcome[]): number {
  return new Set(outcomes.filter((o) => o.ok).map((o) => (o as Deno.KvCommitResult).versionstamp))
    .size;
}

Deno.test("`groupCommits()` commits what waits for a commit under way in one transaction", async (t) => {
  const root = await Deno.makeTempDir({ prefix: "sync-group-" });
  const kv = groupCommits(await Deno.openKv(join(root, "group.kv")));
  try {
    await t.step(
      "five writes at once are two transactions, and every write is stored",
      async () => {
        const outcomes = await allAtOnce(
          [0, 1, 2, 3, 4].map((n) =>
            kv.atomic().check({ key: ["a", n], versionstamp: null }).set(["a", n], n)
          ),
        );
        assert.ok(outcomes.every((o) => o.ok));
        assert.equal(transactions(outcomes), 2);
        for (let n = 0; n < 5; n++) assert.equal((await kv.get(["a", n])).value, n);
      },
    );

    await t.step("two claims of one key at once: exactly one holds, as alone", async () => {
      const claim = (who: string) =>
        kv.atomic().check({ key: ["claim"], versionstamp: null }).set(["claim"], who);
      const outcomes = await allAtOnce([kv.atomic().set(["first"], 1), claim("x"), claim("y")]);
      assert.deepEqual(outcomes.map((o) => o.ok), [true, true, false]);
      assert.equal((await kv.get(["claim"])).value, "x");
    });

    await t.step("sums of one counter in one group add up", async () => {
      const outcomes = await allAtOnce(
        [1n, 2n, 4n, 8n].map((n) => kv.atomic().sum(["count"], n).set(["sum", Number(n)], true)),
      );
      assert.ok(outcomes.every((o) => o.ok));
      assert.equal(transactions(outcomes), 2);
      assert.equal((await kv.get<Deno.KvU64>(["count"])).value?.value, 15n);
    });

    await t.step("a write a later one checks goes first, and the later one sees it", async () => {
      const seen = await kv.get(["seen"]);
      const outcomes = await allAtOnce([
        kv.atomic().set(["lead"], 1),
        kv.atomic().set(["seen"], "changed"),
        kv.atomic().check(seen).set(["seen"], "stale write"),
      ]);
      assert.deepEqual(outcomes.map((o) => o.ok), [true, true, false]);
      assert.equal((await kv.get(["seen"])).value, "changed");
    });

    await t.step(
      "a group one check refuses: the others commit, the refused one writes nothing",
      async () => {
        await kv.set(["moved"], 1);
        const old = { key: ["moved"], versionstamp: "00000000000000010000" };
        const outcomes = await allAtOnce([
          kv.atomic().set(["b", 0], 0),
          kv.atomic().set(["b", 1], 1),
          kv.atomic().check(old).set(["b", 2], 2),
          kv.atomic().set(["b", 3], 3),
        ]);
        assert.deepEqual(outcomes.map((o) => o.ok), [true, true, false, true]);
        assert.deepEqual(
          await Promise.all([0, 1, 2, 3].map(async (n) => (await kv.get(["b", n])).value)),
          [0, 1, null, 3],
        );
      },
    );

    await t.step("a group past Deno KV's size limit is committed one by one", async () => {
      const big = new Uint8Array(60_000);
      const outcomes = await allAtOnce([0, 1, 2, 3, 4, 5].map((n) => {
        const op = kv.atomic();
        for (let i = 0; i < 3; i++) op.set(["big", n, i], big);
        return op;
      }));
      assert.ok(outcomes.every((o) => o.ok));
      assert.equal(transactions(outcomes), 6);
    });

    await t.step(
      "a write with a key that is no key fails alone, and the others commit",
      async () => {
        const outcomes = await Promise.allSettled([
          kv.atomic().set(["c", 0], 0).commit(),
          kv.atomic().set(["c", 1], 1).commit(),
          kv.atomic().set("not a key" as unknown as Deno.KvKey, 2).commit(),
          kv.atomic().set(["c", 3], 3).commit(),
        ]);
        assert.deepEqual(outcomes.map((o) => o.status), [
          "fulfilled",
          "fulfilled",
          "rejected",
          "fulfilled",
        ]);
        assert.equal((await kv.get(["c", 3])).value, 3);
      },
    );

    await t.step("checks past 100 in all are split into groups within the limit", async () => {
      const outcomes = await allAtOnce([0, 1, 2, 3].map((n) => {
        const op = kv.atomic().set(["checked", n], n);
        for (let i = 0; i < 60; i++) op.check({ key: ["nothing", n, i], versionstamp: null });
        return op;
      }));
      assert.ok(outcomes.every((o) => o.ok));
      assert.equal(transactions(outcomes), 4);
    });

    await t.step(
      "a commit that goes alone never names its keys; those that go together name theirs once",
      async () => {
        // A key that counts how often its parts are gone through, which
        // naming it does; Deno KV reads a key's parts without `map`.
        let named = 0;
        const counted = (...parts: string[]): Deno.KvKey => {
          const key = [...parts];
          const map = key.map.bind(key);
          key.map = ((...args: Parameters<typeof map>) => {
            named++;
            return map(...args);
          }) as typeof key.map;
          return key;
        };
        const alone = await kv.atomic().check({ key: counted("lone"), versionstamp: null })
          .set(counted("lone"), 1).commit();
        assert.ok(alone.ok);
        assert.equal(named, 0);
        const outcomes = await allAtOnce([
          kv.atomic().set(counted("lead", "a"), 1),
          kv.atomic().set(counted("joins", "b"), 1),
          kv.atomic().set(counted("joins", "c"), 1),
        ]);
        assert.ok(outcomes.every((o) => o.ok));
        const stamps = outcomes.map((o) => (o as Deno.KvCommitResult).versionstamp);
        const grouped = stamps.filter((s) => stamps.indexOf(s) !== stamps.lastIndexOf(s));
        assert.ok(grouped.length >= 2, "some went together");
        // Each key of an operation that went with another is named once.
        assert.equal(named, grouped.length);
      },
    );
  } finally {
    kv.close();
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("`openInstallation()` and `openProjectMemory()` commit concurrent writes together", async (t) => {
  const root = await Deno.makeTempDir({ prefix: "sync-group-open-" });
  try {
    for (
      const [name, open] of [
        ["the installation", () => openInstallation(join(root, "home"))],
        ["a project's memory", () => openProjectMemory(join(root, "project"))],
      ] as const
    ) {
      await t.step(name, async () => {
        if (name !== "the installation") await Deno.mkdir(join(root, "project"));
        const kv = await open();
        try {
          const outcomes = await allAtOnce(
            [0, 1, 2, 3].map((n) => kv.atomic().set(["call", n], n)),
          );
          assert.ok(outcomes.every((o) => o.ok));
          assert.equal(transactions(outcomes), 2);
        } finally {
          kv.close();
        }
      });
    }
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
