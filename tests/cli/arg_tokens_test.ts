import assert from "node:assert/strict";
import { parseArgs, type ParseArgsOptionsConfig } from "node:util";
import { argTokens } from "../../runtime/cli/arg_tokens.ts";

/** Flags like the commands' own: strings, booleans, short names, repeated ones. */
const OPTIONS: ParseArgsOptionsConfig = {
  project: { type: "string" },
  payload: { type: "string" },
  approve: { type: "boolean" },
  json: { type: "boolean", short: "j" },
  help: { type: "boolean", short: "h" },
  port: { type: "string", short: "p" },
  arg: { type: "string", multiple: true },
  env: { type: "string", multiple: true, short: "e" },
  force: { type: "boolean", multiple: true },
};

/** Command lines a person may type, the odd ones too. */
const LINES: string[][] = [
  [],
  ["help"],
  ["--help"],
  ["-h", "install", "x", "--approve"],
  ["install", "x", "--project", "p", "--approve"],
  ["install", "x", "--project", "--approve"],
  ["install", "x", "--approve=yes", "--project=p"],
  ["list", "--project"],
  ["receipts", "--limit", "-1", "--project", "p"],
  ["--project", "p", "install"],
  ["call", "--payload", "{x", "hello", "hello.greet"],
  ["agents", "add", "a", "--arg", "-y", "--arg", "b", "--env", "K=V", "-e", "L=W"],
  ["serve", "-p", "8080"],
  ["serve", "-p8080"],
  ["serve", "-jh"],
  ["serve", "-jp8080", "x"],
  ["serve", "-jhp", "8080", "y"],
  ["x", "--", "--help", "-h", "y"],
  ["--frobnicate", "x", "-x", "-xyz", "--no=1", "-"],
  ["--__proto__", "x", "--constructor", "--force", "--force"],
  ["-", "--", "--"],
  ["-p"],
  ["--port"],
];

Deno.test("`argTokens()` reads words as `parseArgs` does, leniently", async (t) => {
  for (const options of [OPTIONS, {}]) {
    await t.step(`with ${Object.keys(options).length} flags`, () => {
      for (const args of LINES) {
        const node = parseArgs({
          args,
          options,
          strict: false,
          allowPositionals: true,
          tokens: true,
        });
        const ours = argTokens(args, options);
        assert.deepEqual(ours.tokens, node.tokens, args.join(" "));
        assert.deepEqual(ours.positionals, node.positionals, args.join(" "));
        assert.deepEqual({ ...ours.values }, { ...node.values }, args.join(" "));
      }
    });
  }
});
