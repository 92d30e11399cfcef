import assert from "node:assert/strict";
import { join } from "node:path";
import { ProcessLock } from "../../runtime/host/process_lock.ts";

const LOCK_MODULE = new URL("../../runtime/host/process_lock.ts", import.meta.url).href;

Deno.test("`ProcessLock` tells a process that runs from one that is gone", async (t) => {
  const home = await Deno.makeTempDir({ prefix: "sync-process-lock-" });
  const mine = await ProcessLock.take(home);
  try {
    assert.ok(mine.held);

    await t.step("this process runs", async () => {
      assert.equal(await mine.isGone(mine.mark), false);
    });

    await t.step("another lock held in this process runs too", async () => {
      const other = await ProcessLock.take(home);
      try {
        assert.notEqual(other.mark.id, mine.mark.id);
        assert.equal(await mine.isGone(other.mark), false);
      } finally {
        other.release();
      }
      assert.equal(await mine.isGone(other.mark), true, "once released, it is gone");
    });

    await t.step("a process killed with kill -9 is gone, and its file is removed", async () => {
      const child = new Deno.Command(Deno.execPath(), {
        args: ["run", "--allow-read", "--allow-write", "-"],
        stdin: "piped",
        stdout: "piped",
        stderr: "inherit",
      }).spawn();
      const writer = child.stdin.getWriter();
      await writer.write(new TextEncoder().encode(
        `import { ProcessLock } from ${JSON.stringify(LOCK_MODULE)};
const lock = await ProcessLock.take(${JSON.stringify(home)});
console.log(JSON.stringify(lock.mark));
setInterval(() => {}, 60_000);
`,
      ));
      await writer.close();
      const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
      let text = "";
      while (!text.includes("\n")) {
        const { value, done } = await reader.read();
        if (done) throw new Error(`the child wrote no mark: ${text}`);
        text += value;
      }
      const mark = JSON.parse(text);
      try {
        assert.equal(await mine.isGone(mark), false, "while it runs");
      } finally {
        child.kill("SIGKILL");
        await child.status;
        await reader.cancel();
      }
      assert.equal(await mine.isGone(mark), true, "once killed");
      await assert.rejects(
        Deno.stat(join(home, "running", `${mark.id}.lock`)),
        Deno.errors.NotFound,
      );
    });

    await t.step("sweep() removes the files of processes that are gone, and no other", async () => {
      const gone = join(home, "running", "gone-process.lock");
      await Deno.writeTextFile(gone, "");
      assert.equal(await mine.sweep(), 1);
      await assert.rejects(Deno.stat(gone), Deno.errors.NotFound);
      await Deno.stat(join(home, "running", `${mine.mark.id}.lock`));
    });

    await t.step("where no lock can be made, none is held, and nothing is concluded", async () => {
      const file = join(home, "not-a-folder");
      await Deno.writeTextFile(file, "");
      const none = await ProcessLock.take(file);
      assert.equal(none.held, false);
      assert.equal(await none.isGone(mine.mark), null);
      none.release();
    });
  } finally {
    mine.release();
    await Deno.remove(home, { recursive: true });
  }
});
