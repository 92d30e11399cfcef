import assert from "node:assert/strict";
import { join } from "node:path";
import { BuildError, HandlerFailedError, NotFoundError } from "../../runtime/errors.ts";
import type { CliIo } from "../../runtime/cli/io.ts";
import { MAX_PRINTED_HANDLER_ERROR, reportFailure } from "../../runtime/cli/report_failure.ts";
import { runCli } from "../../runtime/cli/sync.ts";
import { RECEIPT_LIMITS } from "../../runtime/limits.ts";
import { runSync } from "../internal/cli.ts";
import { writePackage } from "../internal/packages.ts";

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

Deno.test("`reportFailure()` prints a failure as `sync <command>: …` in words, or at its line", async (t) => {
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

  await t.step("a build problem with no line: the command and what happened", () => {
    const manifest = new BuildError(
      "Cannot build /p: manifest.json cannot be read (it is missing)",
      { file: "manifest.json" },
    );
    assert.deepEqual(report(manifest, "build"), {
      code: 1,
      stdout: "",
      stderr: "sync build: Cannot build /p: manifest.json cannot be read (it is missing)",
    });
    const folder = new BuildError("Cannot build /q: no such folder", { file: "." });
    assert.equal(
      report(folder, "build").stderr,
      "sync build: Cannot build /q: no such folder",
    );
  });

  await t.step("any other domain error: the command and what happened, no class name", () => {
    assert.deepEqual(report(new NotFoundError("no such thing"), "list"), {
      code: 1,
      stdout: "",
      stderr: "sync list: no such thing",
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
        stderr: `sync check: Cannot check ${
          join(root, "nope")
        }: no such folder; name a package folder (one holding manifest.json)`,
      });
      const json = JSON.parse((await sync(root, "check", "nope", "--json")).stdout);
      assert.deepEqual(json.problems[0], {
        rule: "manifest-json",
        file: "manifest.json",
        message: `Cannot check ${join(root, "nope")}: no such folder`,
        hint: "name a package folder (one holding manifest.json)",
      });
      assert.deepEqual(json.warnings, []);
    });

    await t.step("`check` of a folder with no manifest", async () => {
      assert.deepEqual(await sync(root, "check"), {
        code: 1,
        stdout: "",
        stderr: `sync check: Cannot check ${root}: it has no manifest.json; ` +
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
        `sync build: Cannot build ${root}: manifest.json cannot be read ` +
          `(it is missing); a package folder holds its manifest.json`,
      );
    });
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("`reportFailure()` prints at most 2,000 characters of what a handler threw", async (t) => {
  const PREFIX = "sync call: ";

  await t.step("a short text whole, on one line", () => {
    assert.equal(
      report(new HandlerFailedError("Handler a.b failed: no\nway"), "call").stderr,
      `${PREFIX}Handler a.b failed: no\\nway`,
    );
    const edge = "x".repeat(MAX_PRINTED_HANDLER_ERROR);
    assert.equal(report(new HandlerFailedError(edge), "call").stderr, `${PREFIX}${edge}`);
  });

  await t.step("a long text cut, saying how much and that the receipt has it all", () => {
    const text = "a".repeat(3_000);
    assert.equal(
      report(new HandlerFailedError(text), "call").stderr,
      `${PREFIX}${"a".repeat(2_000)}… [cut: 1,000 more characters; ` +
        `the call's receipt has all of it: sync receipts --project <dir> --json]`,
    );
  });

  await t.step("a text longer than a receipt keeps: the receipt keeps it cut", () => {
    const text = "b".repeat(200_000);
    assert.equal(
      report(new HandlerFailedError(text), "call").stderr,
      `${PREFIX}${"b".repeat(2_000)}… [cut: 198,000 more characters; ` +
        `the call's receipt keeps it cut to ${
          RECEIPT_LIMITS.maxErrorMessageChars.toLocaleString("en-US")
        }: sync receipts --project <dir> --json]`,
    );
  });

  await t.step("escapes count as printed, and are never cut in two", () => {
    const text = "\u0000".repeat(1_000);
    const printed = report(new HandlerFailedError(text), "call").stderr;
    const shown = printed.slice(PREFIX.length, printed.indexOf("…"));
    assert.equal(shown, "\\u0000".repeat(333));
    assert.match(printed, /… \[cut: 667 more characters; the call's receipt has all of it/);
  });
});

Deno.test("`sync call` of a handler that throws 200,000 characters prints a line a person can read", async () => {
  const root = await Deno.makeTempDir({ prefix: "sync-cli-huge-error-" });
  const home = join(root, "home");
  const project = join(root, "project");
  await Deno.mkdir(project);
  try {
    const folder = await writePackage(join(root, "packages"), {
      id: "huge",
      handlers: ["huge.fail"],
      service: `export default function register() {
  return {
    "huge.fail": () => {
      const error = new Error("m".repeat(200000));
      error.name = "N".repeat(100000);
      throw error;
    },
  };
}`,
    });
    const installed = await runSync(home, ["install", folder, "--project", project, "--approve"]);
    assert.equal(installed.code, 0, installed.stderr);

    const call = await runSync(home, ["call", "huge", "huge.fail", "--project", project]);
    assert.equal(call.code, 1);
    assert.equal(call.stdout, "");
    const line = call.stderr.trimEnd();
    assert.ok(!line.includes("\n"), "one line");
    assert.ok(line.length < 2_200, `${line.length} characters`);
    assert.match(
      line,
      /^sync call: Handler huge\.fail failed: m+… \[cut: [\d,]+ more characters; the call's receipt keeps it cut to 4,096: sync receipts --project <dir> --json\]$/,
    );

    const receipts = await runSync(home, ["receipts", "--project", project, "--json"]);
    const receipt = JSON.parse(receipts.stdout.trim().split("\n")[0]);
    assert.equal(receipt.error.name, "HandlerFailedError");
    assert.equal(receipt.error.message.length, RECEIPT_LIMITS.maxErrorMessageChars);
    const shown = line.slice("sync call: ".length, line.indexOf("…"));
    assert.ok(
      receipt.error.message.startsWith(shown),
      "the receipt keeps what was shown, and more",
    );
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
