import assert from "node:assert/strict";
import { join } from "node:path";
import { NotFoundError, UnsafeFileError } from "../../runtime/errors.ts";
import {
  installationToken,
  readInstallationToken,
} from "../../runtime/projects/installation_token.ts";

Deno.test("the installation's token is private to its user", async (t) => {
  const home = await Deno.makeTempDir({ prefix: "sync-token-" });
  const file = join(home, "token");
  try {
    await t.step("`readInstallationToken()` says when there is none yet", async () => {
      await assert.rejects(readInstallationToken(home), NotFoundError);
    });

    let token = "";
    await t.step("`installationToken()` makes one, readable by its user only", async () => {
      token = await installationToken(home);
      assert.match(token, /^[0-9a-f]{48}$/);
      assert.equal((await Deno.stat(file)).mode! & 0o777, 0o600);
      assert.equal(await installationToken(home), token);
      assert.equal(await readInstallationToken(home), token);
    });

    await t.step("a token file others can read is refused, saying why and what to do", async () => {
      await Deno.chmod(file, 0o644);
      for (const read of [readInstallationToken, installationToken]) {
        await assert.rejects(read(home), (error: Error) => {
          assert.ok(error instanceof UnsafeFileError, `${error.name}: ${error.message}`);
          assert.equal(
            error.message,
            `The installation's token can be read by other users (mode 644): ${file}. ` +
              `Whoever reads it may do what you may in Sync, so it is not used: ` +
              `run chmod 600 ${file} (or remove the file, and the next sync serve makes a new token)`,
          );
          return true;
        });
      }
    });

    await t.step("so is one others can change", async () => {
      await Deno.chmod(file, 0o620);
      await assert.rejects(
        readInstallationToken(home),
        /token can be changed by other users \(mode 620\)/,
      );
      await Deno.chmod(file, 0o600);
      assert.equal(await readInstallationToken(home), token);
    });

    await t.step("a file that holds no token is not taken for one", async () => {
      await Deno.writeTextFile(file, "hello\n");
      await assert.rejects(readInstallationToken(home), /does not hold a token/);
    });
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});
