import assert from "node:assert/strict";
import { join } from "node:path";
import { BuildError, NotFoundError } from "../../runtime/errors.ts";
import type { CliIo } from "../../runtime/cli/io.ts";
import { reportFailure } from "../../runtime/cli/report_failure.ts";
import { runCli } from "../../runtime/cli/sync.ts";

/** What was written, and the exit code. */
interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** An io that keeps what is written, and a way to read it. */
function capture(): { io: CliIo; ran: (code: number) => Run } {
  const out: string[] = [];
  const err: string[] = [];
  return {
    io: { out: (line) => out.push(line), err: (line) => err.push(line) },
    ran: (code) => ({ code, stdout: out.join("\n"), stderr: err.join("\n") }),
  };
}

/** `reportFailure(error, command)`, with what it wrote. */
function report(error: unknown, command: string): Run {
  const { io, ran } = capture();
  return ran(reportFailure(error, command, io));
}

/** `runCli(args)` from `cwd`, in this process, with what it wrote. */
async function sync(cwd: string, ...args: string[]): Promise<Run> {
  const { io, ran } = capture();
  return ran(await runCli(args, { io, cwd }));
}

Deno.test("`reportFailure()` prints a failure as `sync <command>: <ErrorName>: …`, or at its line", async (t) => {
  await t.step("a build problem at a line of source: file:line:col, for an editor", () => {
    const error = new BuildError("Cannot build src/service.ts: Expression expected", {
      file: "src/shout.ts",
      line: 2,
      column: 10,
    });
    assert.deepEqual(report(error, "build"), {
      code: 1,
      stdout: "",
      stderr: "src/shout.ts:2:10  Cannot build src/service.ts: Expression expected",
    });
  });

  await t.step("a build problem with no line: the command and the error's name", () => {
    const manifest = new BuildError(
      "Cannot build /p: manifest.json cannot be read (it is missing)",
      { file: "manifest.json" },
    );
    assert.deepEqual(report(manifest, "build"), {
      code: 1,
      stdout: "",
      stderr:
        "sync build: BuildError: Cannot build /p: manifest.json cannot be read (it is missing)",
    });
    const folder = new BuildError("Cannot build /q: no such folder", { file: "." });
    assert.equal(
      report(folder, "build").stderr,
      "sync build: BuildError: Cannot build /q: no such folder",
    );
  });

  await t.step("any other domain error: the command and the error's name", () => {
    assert.deepEqual(report(new NotFoundError("no such thing"), "list"), {
      code: 1,
      stdout: "",
      stderr: "sync list: NotFoundError: no such thing",
    });
  });
});

Deno.test("`runCli()` reports check's and build's own failures in the documented shape", async (t) => {
  const root = await Deno.makeTempDir({ prefix: "sync-cli-failure-" });
  try {
    await t.step("`check` of a folder that is not there", async () => {
      assert.deepEqual(await sync(root, "check", "nope"), {
        code: 1,
        stdout: "",
        stderr: `sync check: NotFoundError: Cannot check ${
          join(root, "nope")
        }: no such folder; name a package folder`,
      });
    });

    await t.step("`check` of a folder with no manifest", async () => {
      assert.deepEqual(await sync(root, "check"), {
        code: 1,
        stdout: "",
        stderr: `sync check: NotFoundError: Cannot check ${root}: it has no manifest.json; ` +
          `run check in a package folder, or name one`,
      });
      const json = await sync(root, "check", "--json");
      assert.equal(json.code, 1);
      assert.equal(json.stderr, "");
      assert.equal(JSON.parse(json.stdout).problems[0].rule, "manifest-json");
    });

    await t.step("`build` of a folder with no manifest", async () => {
      const run = await sync(root, "build");
      assert.equal(run.code, 1);
      assert.equal(run.stdout, "");
      assert.equal(
        run.stderr,
        `sync build: BuildError: Cannot build ${root}: manifest.json cannot be read ` +
          `(it is missing); a package folder holds its manifest.json`,
      );
    });
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
