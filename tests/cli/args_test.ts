import assert from "node:assert/strict";
import { join } from "node:path";
import { COMMANDS, runCli, USAGE } from "../../runtime/cli/sync.ts";
import { formatSummaries } from "../../runtime/cli/format_summaries.ts";
import type { CliIo } from "../../runtime/cli/io.ts";
import { exists } from "../internal/cli.ts";

/** What one in-process run of the CLI wrote, and its exit code. */
interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs the CLI in this process with `SYNC_HOME` pointing at a folder that
 * must never be created: every run here is decided before an installation
 * is opened.
 */
async function sync(...args: string[]): Promise<Run> {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = { out: (line) => out.push(line), err: (line) => err.push(line) };
  const code = await runCli(args, { io, cwd: "/nonexistent-start-folder" });
  return { code, stdout: out.join("\n"), stderr: err.join("\n") };
}

/** The usage text of the command named `name`. */
function usageOf(name: string): string {
  const command = COMMANDS.find((c) => c.name === name);
  assert.ok(command, `no command ${name}`);
  return command.usage;
}

Deno.test("`runCli()` parses each command's words with that command's flags", async (t) => {
  const root = await Deno.makeTempDir({ prefix: "sync-cli-args-" });
  const home = join(root, "home");
  const before = Deno.env.get("SYNC_HOME");
  Deno.env.set("SYNC_HOME", home);
  try {
    await t.step(
      "a flag of another command is refused with this command's usage, exit 2",
      async () => {
        const run = await sync("install", "x", "--port", "1");
        assert.equal(run.code, 2);
        assert.equal(run.stdout, "");
        assert.match(
          run.stderr,
          /^sync install: unknown option --port: install does not take it\n\n/,
        );
        assert.ok(run.stderr.endsWith(`\n\n${usageOf("install")}`), run.stderr);
        assert.ok(!run.stderr.includes("Usage: sync <command>"));

        const others: [string, ...string[]][] = [
          ["list", "--approve"],
          ["records", "--json"],
          ["receipts", "--kind", "x"],
          ["schedule", "--limit", "3"],
          ["switch", "--force"],
          ["projects", "--project", "p"],
          ["serve", "--project", "p"],
          ["call", "--kind", "x"],
          ["open", "--payload", "{}"],
          ["remove", "--approve"],
          ["build", "--name", "x"],
          ["new", "--json", "x"],
          ["check", "--project", "p"],
        ];
        for (const [name, ...flags] of others) {
          const refused = await sync(name, ...flags);
          assert.equal(refused.code, 2, `sync ${name} ${flags.join(" ")}`);
          assert.equal(refused.stdout, "");
          assert.match(
            refused.stderr,
            new RegExp(`^sync ${name}: unknown option ${flags[0]}: ${name} does not take it\n\n`),
          );
          assert.ok(refused.stderr.endsWith(`\n\n${usageOf(name)}`), refused.stderr);
        }
      },
    );

    await t.step("a word past what a command takes is refused with its usage, exit 2", async () => {
      const cases: [string[], RegExp][] = [
        [
          ["install", "a", "b", "--project", "p"],
          /"b" is one word too many: install takes at most 1/,
        ],
        [["remove", "hello", "extra", "--project", "p"], /"extra" is one word too many/],
        [
          ["list", "--project", "p", "x", "y"],
          /"x" "y" are 2 words too many: list takes only flags/,
        ],
        [["switch", "issues", "off", "extra", "--project", "p"], /"extra" is one word too many/],
        [["schedule", "--project", "p", "junk"], /"junk" is one word too many/],
      ];
      for (const [args, message] of cases) {
        const run = await sync(...args);
        assert.equal(run.code, 2, args.join(" "));
        assert.match(run.stderr, message);
        assert.ok(run.stderr.endsWith(`\n\n${usageOf(args[0])}`), run.stderr);
      }
      const projects = await sync("projects", "junk");
      assert.equal(projects.code, 2);
      assert.match(
        projects.stderr,
        /^sync projects: takes no words \(the list\), or forget <dir>; not "junk"\n\nUsage:/,
      );
    });

    await t.step("a port that is not one is refused before anything starts, exit 2", async () => {
      for (const port of ["abc", "99999", "1.5", "", "80x"]) {
        const run = await sync("serve", "--port", port);
        assert.equal(run.code, 2, port);
        assert.match(run.stderr, /--port must be a port: a whole number from 1 to 65535/);
      }
      const env = Deno.env.get("SYNC_PORT");
      Deno.env.set("SYNC_PORT", "xyz");
      try {
        const run = await sync("serve");
        assert.equal(run.code, 2);
        assert.match(run.stderr, /SYNC_PORT must be a port[^]*not "xyz"/);
      } finally {
        if (env === undefined) Deno.env.delete("SYNC_PORT");
        else Deno.env.set("SYNC_PORT", env);
      }
      assert.ok(!(await exists(home)), "no installation was made");
    });

    await t.step("an unknown flag is refused by every command with its own usage", async () => {
      for (const command of COMMANDS) {
        const run = await sync(command.name, "--frobnicate");
        assert.equal(run.code, 2, command.name);
        assert.equal(
          run.stderr.slice(0, run.stderr.indexOf("\n\n")),
          `sync ${command.name}: unknown option --frobnicate: ${command.name} does not take it`,
        );
        assert.ok(run.stderr.endsWith(`\n\n${command.usage}`), command.name);
      }
    });

    await t.step("a flag's value is refused in our words when missing or mistyped", async () => {
      const cases: [string[], string][] = [
        [["list", "--project"], "--project needs a value: --project <value>"],
        [
          ["install", "x", "--project", "--approve"],
          `--project needs a value, and "--approve" looks like a flag; ` +
          `write --project=--approve for a value that starts with "-"`,
        ],
        [
          ["install", "x", "--approve=yes", "--project", "p"],
          "--approve takes no value: write --approve alone, not --approve=…",
        ],
        [["list", "-x"], "unknown option -x: list does not take it"],
      ];
      for (const [args, message] of cases) {
        assert.deepEqual(
          await sync(...args),
          { code: 2, stdout: "", stderr: `sync ${args[0]}: ${message}\n\n${usageOf(args[0])}` },
          args.join(" "),
        );
      }
    });

    await t.step("a number below zero reaches the command, whose own check speaks", async () => {
      for (const limit of ["-1", "0", "x"]) {
        assert.deepEqual(await sync("receipts", "--limit", limit, "--project", "p"), {
          code: 2,
          stdout: "",
          stderr: `sync receipts: --limit must be a positive whole number, ` +
            `not ${JSON.stringify(limit)}`,
        });
      }
    });

    await t.step("`--help` and `-h` print the command's usage on stdout, exit 0", async () => {
      for (const command of COMMANDS) {
        for (const flag of ["--help", "-h"]) {
          const run = await sync(command.name, flag);
          assert.deepEqual(run, { code: 0, stdout: command.usage, stderr: "" }, command.name);
        }
      }
      assert.deepEqual(await sync("-h", "install", "x", "--approve"), {
        code: 0,
        stdout: usageOf("install"),
        stderr: "",
      });
      assert.match(usageOf("install"), /^Usage:\n {2}install <folder\|archive> --project <dir>/);
      assert.match(usageOf("check"), /^Usage: check \[dir\] \[--json\]/);
      assert.equal(usageOf("build"), usageOf("new"));
    });

    await t.step("`sync help` and `sync --help` print the command list, exit 0", async () => {
      assert.deepEqual(await sync("help"), { code: 0, stdout: USAGE, stderr: "" });
      assert.deepEqual(await sync("--help"), { code: 0, stdout: USAGE, stderr: "" });
      assert.deepEqual(await sync("help", "help"), { code: 0, stdout: USAGE, stderr: "" });
      for (const command of COMMANDS) {
        for (const { synopsis } of command.summary) {
          // Beside what it does, or on a line of its own above it.
          assert.match(USAGE, new RegExp(`\n  ${RegExp.escape(synopsis)}( {2}|\n)`), synopsis);
        }
      }
    });

    await t.step(
      "the command list says where the installation lives, as `syncHome()` finds it",
      () => {
        assert.match(
          USAGE,
          /\nThe installation lives in \$SYNC_HOME \(default: \$XDG_DATA_HOME\/sync, else ~\/\.local\/share\/sync\)\./,
        );
      },
    );

    await t.step(
      "`sync help <command>` prints that command's usage on stdout, exit 0",
      async () => {
        for (const command of COMMANDS) {
          assert.deepEqual(
            await sync("help", command.name),
            { code: 0, stdout: command.usage, stderr: "" },
            command.name,
          );
        }
      },
    );

    await t.step("`sync help` of what is no command, or of two, is bad usage, exit 2", async () => {
      assert.deepEqual(await sync("help", "nosuch"), {
        code: 2,
        stdout: "",
        stderr: `sync help: unknown command "nosuch"\n\n${USAGE}`,
      });
      const two = await sync("help", "install", "list");
      assert.equal(two.code, 2);
      assert.equal(two.stdout, "");
      assert.match(two.stderr, /^sync help: help takes one command's name; "list" is more/);
    });

    await t.step(
      "bare `sync` says a command is missing, with the list, on stderr, exit 2",
      async () => {
        assert.deepEqual(await sync(), {
          code: 2,
          stdout: "",
          stderr: `sync: no command given; name one of those below\n\n${USAGE}`,
        });
        const flags = await sync("--project", "p");
        assert.equal(flags.code, 2);
        assert.equal(flags.stdout, "");
        assert.match(flags.stderr, /^sync: no command given/);
      },
    );

    await t.step("an unknown command or a flag no command takes is bad usage, exit 2", async () => {
      assert.deepEqual(await sync("greet", "--project", "p"), {
        code: 2,
        stdout: "",
        stderr: `sync: unknown command "greet"\n\n${USAGE}`,
      });
      const flag = await sync("--frobnicate");
      assert.equal(flag.code, 2);
      assert.equal(
        flag.stderr,
        `sync: unknown option --frobnicate: no command takes it\n\n${USAGE}`,
      );
      assert.ok(flag.stderr.endsWith(`\n\n${USAGE}`));
    });

    await t.step("flags may stand before the command's name", async () => {
      const install = await sync("--project", "p", "install");
      assert.equal(install.code, 2);
      assert.equal(install.stdout, "");
      // No folder: what to pass, with its usage and an example.
      assert.match(
        install.stderr,
        /^sync install: needs the package folder or archive to install\n\nUsage:\n[^]*\nExample:\n {2}sync install \.\/hello --project/,
      );
      const payload = await sync("--payload", "{x", "call", "hello", "hello.greet");
      assert.equal(payload.code, 2);
      assert.match(payload.stderr, /^sync call: --payload is not JSON: /);
    });

    await t.step(
      "missing words and --project are bad usage, said by the command with its usage",
      async () => {
        const cases: [string[], string][] = [
          [["install", "x"], "--project <dir> is required"],
          [["remove", "--project", "p"], "needs a package id"],
          [["remove", "x"], "--project <dir> is required"],
          [["open"], "--project <dir> is required"],
          [["list"], "--project <dir> is required"],
          [["call", "--project", "p"], "needs a package id and a handler"],
          [["call", "hello", "--project", "p"], "needs a handler name after the package id"],
          [["call", "hello", "hello.greet"], "--project <dir> is required"],
          [["records"], "--project <dir> is required"],
          [["receipts"], "--project <dir> is required"],
          [["schedule"], "--project <dir> is required"],
          [["switch", "--project", "p"], "needs a package id"],
          [["switch", "x", "--project", "p"], 'needs "off" or "on" after the id, not nothing'],
          [
            ["switch", "x", "maybe", "--project", "p"],
            'needs "off" or "on" after the id, not maybe',
          ],
          [["switch", "x", "off"], "--project <dir> is required"],
          [["projects", "forget"], "forget needs a project folder"],
          [["mcp"], "--project <dir> is required"],
        ];
        for (const [args, message] of cases) {
          const run = await sync(...args);
          assert.deepEqual(
            run,
            { code: 2, stdout: "", stderr: `sync ${args[0]}: ${message}\n\n${usageOf(args[0])}` },
            `sync ${args.join(" ")}`,
          );
        }
      },
    );

    await t.step("the author's commands take as many folders as they say", async () => {
      const cases: [string[], string][] = [
        [
          ["build", "a", "b"],
          `"b" is one word too many: build takes at most 1 (quote a value that has spaces)`,
        ],
        [
          ["check", "a", "b"],
          `"b" is one word too many: check takes at most 1 (quote a value that has spaces)`,
        ],
        [["new"], "needs a package id, and optionally a folder"],
        [
          ["new", "a", "b", "c"],
          `"c" is one word too many: new takes at most 2 (quote a value that has spaces)`,
        ],
      ];
      for (const [args, message] of cases) {
        assert.deepEqual(
          await sync(...args),
          { code: 2, stdout: "", stderr: `sync ${args[0]}: ${message}\n\n${usageOf(args[0])}` },
          `sync ${args.join(" ")}`,
        );
      }
    });

    await t.step("commands that share a flag give it the same type", () => {
      // runCli finds the command's name past flags of any command, so a shared
      // flag must take a value (or not) for all of them alike.
      const types = new Map<string, string>();
      for (const command of COMMANDS) {
        for (const [flag, { type }] of Object.entries(command.options)) {
          assert.equal(types.get(flag) ?? type, type, `--${flag} of ${command.name}`);
          types.set(flag, type);
        }
      }
    });

    await t.step("none of it opened an installation", async () => {
      await assert.rejects(Deno.stat(home), Deno.errors.NotFound);
    });
  } finally {
    if (before === undefined) Deno.env.delete("SYNC_HOME");
    else Deno.env.set("SYNC_HOME", before);
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("`formatSummaries()` lays out the command list", async (t) => {
  await t.step("what a command does starts at column 25, beside a short synopsis", () => {
    assert.equal(
      formatSummaries([{ synopsis: "projects forget <dir>", about: "Take it off.\nFor good." }]),
      "  projects forget <dir>  Take it off.\n                         For good.",
    );
  });

  await t.step("under a synopsis that leaves less than two spaces", () => {
    assert.equal(
      formatSummaries([{ synopsis: "projects forget <dirs>", about: "Take them off." }]),
      "  projects forget <dirs>\n                         Take them off.",
    );
  });
});
