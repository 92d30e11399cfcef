import assert from "node:assert/strict";
import { join } from "node:path";
import { openInstallation, syncHome } from "../../runtime/projects/home.ts";
import { InvalidInputError } from "../../runtime/errors.ts";

/** Reads variables from `vars`, as the environment would. */
function env(vars: Record<string, string>): (name: string) => string | undefined {
  return (name) => vars[name];
}

Deno.test("`syncHome()` finds the installation folder from the environment", async (t) => {
  await t.step("SYNC_HOME wins over everything", () => {
    assert.equal(
      syncHome(env({ SYNC_HOME: "/srv/sync", XDG_DATA_HOME: "/data", HOME: "/home/ada" })),
      "/srv/sync",
    );
  });

  await t.step("without it, `sync` under XDG_DATA_HOME", () => {
    assert.equal(syncHome(env({ XDG_DATA_HOME: "/data", HOME: "/home/ada" })), "/data/sync");
  });

  await t.step("without either, `~/.local/share/sync`", () => {
    assert.equal(syncHome(env({ HOME: "/home/ada" })), "/home/ada/.local/share/sync");
  });

  await t.step("an empty variable counts as unset", () => {
    assert.equal(
      syncHome(env({ SYNC_HOME: "", XDG_DATA_HOME: "", HOME: "/home/ada" })),
      "/home/ada/.local/share/sync",
    );
  });

  await t.step("by default it reads the process's environment", () => {
    const before = Deno.env.get("SYNC_HOME");
    Deno.env.set("SYNC_HOME", "/srv/from-env");
    try {
      assert.equal(syncHome(), "/srv/from-env");
    } finally {
      if (before === undefined) Deno.env.delete("SYNC_HOME");
      else Deno.env.set("SYNC_HOME", before);
    }
  });

  await t.step("with none of them it says which to set", () => {
    assert.throws(
      () => syncHome(env({})),
      (error) =>
        error instanceof InvalidInputError &&
        error.message ===
          "Cannot find a place for the installation: set SYNC_HOME to a folder Sync may use",
    );
  });
});

Deno.test("`openInstallation()` makes the folder and opens `sync.kv` in it", async () => {
  const root = await Deno.makeTempDir({ prefix: "sync-home-" });
  try {
    const home = join(root, "not", "yet");
    const kv = await openInstallation(home);
    try {
      await kv.set(["probe"], 1);
    } finally {
      kv.close();
    }
    assert.ok((await Deno.stat(join(home, "sync.kv"))).isFile);
    using again = await openInstallation(home);
    assert.equal((await again.get(["probe"])).value, 1, "the same installation again");
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("`openInstallation()` keeps the installation folder to this user", async (t) => {
  const root = await Deno.makeTempDir({ prefix: "sync-home-" });
  const modeOf = async (path: string) => (await Deno.stat(path)).mode! & 0o777;
  try {
    await t.step("a folder it makes is closed to the group and others", async () => {
      const home = join(root, "new");
      using _kv = await openInstallation(home);
      assert.equal(await modeOf(home), 0o700);
    });

    await t.step("a folder open to others is closed, whatever its files' modes", async () => {
      const home = join(root, "open");
      await Deno.mkdir(home);
      await Deno.chmod(home, 0o755);
      using kv = await openInstallation(home);
      await kv.set(["secret"], "sk-value");
      assert.equal(await modeOf(home), 0o700);
    });
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
