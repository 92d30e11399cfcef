import assert from "node:assert/strict";
import { join } from "node:path";
import { UnsafeFileError } from "../../runtime/errors.ts";
import { privateInstallationFolder } from "../../runtime/projects/home.ts";
import {
  findInstallationOwner,
  tryOwnInstallation,
} from "../../runtime/projects/installation_owner.ts";
import { installationToken } from "../../runtime/projects/installation_token.ts";
import { ownerSocketClient, ownerSocketPath } from "../../runtime/projects/owner_socket.ts";
import { thisUserId } from "../../runtime/projects/this_user.ts";
import { rejectsWith } from "../internal/rejects_with.ts";
import { StrangerSocket } from "../internal/stranger_socket.ts";

/** The user files are given to, to stand for another user of the machine (`nobody`). */
const OTHER = 65534;

/** How another user's installation folder is refused. */
function refusal(home: string): string {
  return `${home} belongs to another user (uid ${OTHER}); set SYNC_HOME to a folder of your own`;
}

/** Only root may give a file to another user. */
const AS_ROOT = Deno.build.os !== "windows" && (await Deno.stat(Deno.execPath())).uid === 0 &&
  (await idOfThisUser()) === 0;

/** The user running the tests, as the system's `id -u` says. */
async function idOfThisUser(): Promise<number> {
  const { stdout } = await new Deno.Command("id", { args: ["-u"] }).output();
  return Number(new TextDecoder().decode(stdout).trim());
}

Deno.test("`thisUserId()` is the user running Sync", async () => {
  if (Deno.build.os === "windows") return;
  assert.equal(await thisUserId(), await idOfThisUser());
});

Deno.test({
  name: "another user's installation is refused before anything is changed or sent",
  // Giving a file to another user takes root; the tests of the CLI run as root here.
  ignore: !AS_ROOT,
  fn: async (t) => {
    const root = await Deno.makeTempDir({ prefix: "sync-other-" });
    const home = join(root, "home");
    try {
      await Deno.mkdir(home, { mode: 0o755 });
      await Deno.chmod(home, 0o755);
      await Deno.chown(home, OTHER, OTHER);

      await t.step("`privateInstallationFolder()` refuses it, and leaves its mode", async () => {
        await rejectsWith(privateInstallationFolder(home), UnsafeFileError, refusal(home));
        assert.equal((await Deno.stat(home)).mode! & 0o777, 0o755);
      });

      await t.step("`tryOwnInstallation()` refuses it, making no lock there", async () => {
        await rejectsWith(tryOwnInstallation(home, "call"), UnsafeFileError, refusal(home));
        await assert.rejects(Deno.stat(join(home, "owner.lock")), Deno.errors.NotFound);
      });

      await t.step("`findInstallationOwner()` refuses it, reading no note", async () => {
        await Deno.writeTextFile(join(home, "owner.lock"), "");
        await Deno.writeTextFile(join(home, "owner.json"), `{"pid":1,"command":"serve"}`);
        await rejectsWith(findInstallationOwner(home), UnsafeFileError, refusal(home));
        assert.ok(await Deno.stat(join(home, "owner.json")), "the left note is not removed");
      });

      await t.step("`ownerSocketClient()` refuses it, though closed to others", async () => {
        await Deno.chmod(home, 0o700);
        await rejectsWith(ownerSocketClient(home), UnsafeFileError, refusal(home));
      });
    } finally {
      await Deno.remove(root, { recursive: true });
    }
  },
});

Deno.test({
  name: "another user's token, lock or socket in this user's installation is refused",
  ignore: !AS_ROOT,
  fn: async (t) => {
    const home = await Deno.makeTempDir({ prefix: "sync-other-" });
    try {
      await t.step("`installationToken()` refuses another user's token", async () => {
        const token = join(home, "token");
        await Deno.writeTextFile(token, "ab".repeat(24) + "\n", { mode: 0o600 });
        await Deno.chown(token, OTHER, OTHER);
        await rejectsWith(
          installationToken(home),
          UnsafeFileError,
          `${token} belongs to another user (uid ${OTHER}); it is not used: remove it, and the ` +
            `next sync serve makes a new token`,
        );
      });

      await t.step("`tryOwnInstallation()` refuses another user's lock", async () => {
        const lock = join(home, "owner.lock");
        await Deno.writeTextFile(lock, "", { mode: 0o600 });
        await Deno.chown(lock, OTHER, OTHER);
        const refused = `${lock} belongs to another user (uid ${OTHER}); no process of yours ` +
          `made it, so it is not trusted: remove it and run the command again`;
        await rejectsWith(tryOwnInstallation(home, "call"), UnsafeFileError, refused);
        await rejectsWith(findInstallationOwner(home), UnsafeFileError, refused);
        await Deno.remove(lock);
      });

      await t.step("`ownerSocketClient()` refuses another user's socket", async () => {
        const path = ownerSocketPath(home);
        const stranger = await StrangerSocket.listen(path, OTHER);
        try {
          await rejectsWith(
            ownerSocketClient(home),
            UnsafeFileError,
            `${path} belongs to another user (uid ${OTHER}); it is not your sync serve's, so ` +
              `nothing is sent to it: remove it, and start sync serve again`,
          );
          assert.equal(stranger.connections, 0);
        } finally {
          await stranger.close();
        }
      });
    } finally {
      await Deno.remove(home, { recursive: true });
    }
  },
});
