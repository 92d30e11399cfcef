/**
 * Runs a file of test steps that listen on a Unix socket, which the suite's
 * own permissions do not allow, with `deno test` in a process of its own
 * that is allowed to.
 *
 * @module
 */
import assert from "node:assert/strict";

/**
 * Runs the steps file `name` (in `tests/internal/`) and asserts every test
 * and step in it passed, as many as `summary` says.
 *
 * @param name The file's name, such as `owner_answer_steps.ts`.
 * @param summary What its summary line must say, such as `1 passed (4 steps)`.
 */
export async function runSocketSteps(name: string, summary: string): Promise<void> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: [
      "test",
      "--allow-read",
      "--allow-write",
      "--allow-net",
      new URL(name, import.meta.url).pathname,
    ],
    env: { NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const said = new TextDecoder().decode(output.stdout) + new TextDecoder().decode(output.stderr);
  assert.ok(output.success, said);
  assert.ok(said.includes(`ok | ${summary}`), said);
}
