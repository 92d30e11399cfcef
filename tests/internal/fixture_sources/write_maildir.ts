/**
 * Writes a fixture Maildir from the command line, for the bench and for
 * trying a reader by hand:
 *
 * ```sh
 * deno run --allow-read --allow-write tests/internal/fixture_sources/write_maildir.ts <dir> \
 *   --messages 10000 [--seed 1] [--truth <file.json>]
 * ```
 *
 * It prints progress every 500 messages and, at the end, the count, bytes
 * and time taken.
 *
 * @module
 */

import { parseArgs } from "node:util";
import { writeMaildir } from "./maildir.ts";

/** Parses the arguments, writes the Maildir and reports; returns the exit code. */
export async function main(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      messages: { type: "string", default: "2000" },
      seed: { type: "string", default: "1" },
      truth: { type: "string" },
    },
  });
  const messages = Number(values.messages);
  const seed = Number(values.seed);
  if (positionals.length !== 1 || !Number.isInteger(messages) || !Number.isInteger(seed)) {
    console.error(
      "Usage: write_maildir.ts <dir> [--messages N] [--seed N] [--truth file.json]: give one folder and whole numbers.",
    );
    return 2;
  }
  const started = performance.now();
  const truth = await writeMaildir(positionals[0], {
    messages,
    seed,
    truthFile: values.truth,
    onProgress: (written, total) => {
      if (total >= 1000) console.error(`${written}/${total} messages written`);
    },
  });
  const bytes = truth.messages.reduce((sum, m) => sum + m.size, 0);
  const seconds = (performance.now() - started) / 1000;
  console.log(
    `${truth.messages.length} messages in ${truth.threads.length} threads, ` +
      `${(bytes / 1e6).toFixed(1)} MB, written in ${seconds.toFixed(1)} s`,
  );
  return 0;
}

if (import.meta.main) Deno.exit(await main(Deno.args));
