/**
 * Where programs are found: Sync's own PATH, then `~/.local/bin` under a
 * real temporary home, as `findProgram()` looks and as the supervisor
 * starts what it found.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { ProcessStartError } from "../../runtime/errors.ts";
import { Supervisor } from "../../runtime/supervisor/mod.ts";
import { findProgram } from "../../runtime/supervisor/find_program.ts";
import { readAll } from "../internal/processes.ts";
import { rejectsWith } from "../internal/rejects_with.ts";
import { tempFolder } from "../internal/temp_folder.ts";

/** Writes an executable shell script. */
async function script(file: string, body: string): Promise<string> {
  await Deno.writeTextFile(file, `#!/bin/sh\n${body}\n`);
  await Deno.chmod(file, 0o755);
  return file;
}

/** A temporary home with `.local/bin/<name>` in it, and a folder of its own for PATH. */
async function homeWith(name: string) {
  const root = await tempFolder("sync-find-");
  const home = join(root, "home");
  const localBin = join(home, ".local", "bin");
  const onPath = join(root, "bin");
  await Deno.mkdir(localBin, { recursive: true });
  await Deno.mkdir(onPath);
  await script(join(localBin, name), 'echo "from .local/bin"');
  return { root, home, localBin, onPath };
}

Deno.test("`findProgram()` looks in ~/.local/bin after PATH", async (t) => {
  await t.step("a program only in ~/.local/bin is found there", async () => {
    const { home, localBin, onPath } = await homeWith("claude");
    assert.equal(
      await findProgram("claude", `${onPath}:/usr/bin`, "/", { home }),
      join(localBin, "claude"),
    );
  });

  await t.step("PATH comes first", async () => {
    const { home, onPath } = await homeWith("claude");
    await script(join(onPath, "claude"), 'echo "from PATH"');
    assert.equal(await findProgram("claude", onPath, "/", { home }), join(onPath, "claude"));
  });

  await t.step("a home that is not absolute adds nothing", async () => {
    const { onPath } = await homeWith("claude");
    await rejectsWith(
      findProgram("claude", onPath, "/", { home: "home" }),
      ProcessStartError,
      `Cannot start claude: no such program on PATH (${onPath}). Install claude, or add the ` +
        `folder it is in to PATH, or give its full path in the command`,
    );
  });

  await t.step("a program in neither names both", async () => {
    const { home, localBin, onPath } = await homeWith("claude");
    await rejectsWith(
      findProgram("gemini", onPath, "/", { home }),
      ProcessStartError,
      `Cannot start gemini: no such program on PATH (${onPath}) or in ${localBin}. Install ` +
        `gemini, or add the folder it is in to PATH, or give its full path in the command`,
    );
  });
});

Deno.test("`Supervisor.spawn()` starts a program from ~/.local/bin, which finds its siblings", async () => {
  const { root, home, localBin } = await homeWith("claude");
  // The program runs a sibling by name: it finds it on the PATH it was given.
  await script(join(localBin, "agent"), "helper");
  await script(join(localBin, "helper"), 'echo "helper ran; PATH=$PATH"');
  const supervisor = new Supervisor({
    recordFolder: join(root, "processes"),
    environment: () => ({ PATH: "/usr/bin:/bin", HOME: home }),
  });
  try {
    const agent = await supervisor.spawn("tests", { command: "agent" });
    assert.equal(agent.program, join(localBin, "agent"));
    assert.equal(await readAll(agent.text()), `helper ran; PATH=/usr/bin:/bin:${localBin}\n`);
    await agent.gone;
  } finally {
    await supervisor.close();
  }
});
