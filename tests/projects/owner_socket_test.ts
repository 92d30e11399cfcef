import assert from "node:assert/strict";
import { join } from "node:path";
import { ConflictError, UnsafeFileError } from "../../runtime/errors.ts";
import {
  ownerSocketClient,
  ownerSocketPath,
  removeLeftOwnerSocket,
} from "../../runtime/projects/owner_socket.ts";
import { rejectsWith } from "../internal/rejects_with.ts";

Deno.test("`ownerSocketClient()` refuses a socket that may not be this person's", async (t) => {
  const home = await Deno.makeTempDir({ prefix: "sync-socket-" });
  try {
    await t.step("in a folder other users may enter", async () => {
      await Deno.chmod(home, 0o755);
      await assert.rejects(
        ownerSocketClient(home),
        UnsafeFileError,
        `The installation folder ${home} can be entered by other users (mode 755), so its ` +
          `socket may not be this person's; run chmod 700 ${home}`,
      );
    });

    await t.step("where something other than a socket has its name", async () => {
      await Deno.chmod(home, 0o700);
      await Deno.writeTextFile(ownerSocketPath(home), "");
      await rejectsWith(
        ownerSocketClient(home),
        UnsafeFileError,
        `${join(home, "owner.sock")} is not a socket; stop sync serve, remove it, and start ` +
          `sync serve again`,
      );
    });
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("`removeLeftOwnerSocket()` removes only a socket", async (t) => {
  const home = await Deno.makeTempDir({ prefix: "sync-socket-" });
  try {
    await t.step("nothing there is nothing to remove", async () => {
      await removeLeftOwnerSocket(ownerSocketPath(home));
    });

    await t.step("a file there is kept, and refused saying what to do", async () => {
      await Deno.writeTextFile(ownerSocketPath(home), "mine");
      await assert.rejects(
        removeLeftOwnerSocket(ownerSocketPath(home)),
        ConflictError,
        "something other than a socket is there; move it away",
      );
      assert.equal(await Deno.readTextFile(ownerSocketPath(home)), "mine");
    });
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});
