/**
 * The parsers' throughput: a fixture Maildir of 1,000 messages (a third of
 * them newsletters of 31–98 KB) written to a temporary folder, then every
 * message parsed by a {@linkcode ParserPool} as `account.parseMail` does, 32
 * files a call; it prints messages a second and the process's peak resident
 * memory while it parsed (the workers live in the process, so it counts
 * theirs):
 *
 * ```sh
 * deno run --unstable-worker-options --allow-read --allow-write tests/bench/parse_throughput.ts [--messages 1000]
 * ```
 *
 * @module
 */
import { join } from "node:path";
import { ParserPool } from "../../runtime/parsers/mod.ts";
import { ACCOUNT_LIMITS } from "../../runtime/limits.ts";
import { writeMaildir } from "../internal/fixture_sources/maildir.ts";

/** What one run measured. */
export interface ParseThroughput {
  /** Messages parsed. */
  messages: number;
  /** Bytes of them on disk. */
  bytes: number;
  /** Wall time of the parse, reads included, in ms. */
  ms: number;
  /** Messages that parsed; the rest were answered with a reason. */
  parsed: number;
  /** Resident memory before the parse, in bytes. */
  rssBefore: number;
  /** The most resident memory seen while it parsed, in bytes. */
  rssPeak: number;
}

/**
 * Writes the fixture and parses it.
 *
 * @param messages How many messages the fixture has.
 */
export async function measureParse(messages = 1_000): Promise<ParseThroughput> {
  const dir = await Deno.makeTempDir({ prefix: "sync-bench-" });
  const pool = new ParserPool();
  try {
    const truth = await writeMaildir(dir, { messages, seed: 1 });
    const paths = truth.messages.map((m) => join(dir, ...m.path.split("/")));
    // The workers start before the clock does, as in a serve that has parsed before.
    await pool.parseMail([new TextEncoder().encode("Subject: warm\r\n\r\nup")]);
    const rssBefore = Deno.memoryUsage().rss;
    let rssPeak = rssBefore;
    const sampler = setInterval(() => {
      rssPeak = Math.max(rssPeak, Deno.memoryUsage().rss);
    }, 5);
    let parsed = 0;
    let bytes = 0;
    const started = performance.now();
    for (let i = 0; i < paths.length; i += ACCOUNT_LIMITS.maxParsePaths) {
      const files = await Promise.all(
        paths.slice(i, i + ACCOUNT_LIMITS.maxParsePaths).map((path) => Deno.readFile(path)),
      );
      for (const file of files) bytes += file.byteLength;
      const results = await pool.parseMail(files);
      parsed += results.filter((result) => result.ok).length;
      rssPeak = Math.max(rssPeak, Deno.memoryUsage().rss);
    }
    const ms = performance.now() - started;
    clearInterval(sampler);
    return { messages: paths.length, bytes, ms, parsed, rssBefore, rssPeak };
  } finally {
    pool.close();
    await Deno.remove(dir, { recursive: true });
  }
}

/** The run as one line. */
export function parseLine(run: ParseThroughput): string {
  const mb = (n: number) => (n / 1024 / 1024).toFixed(0);
  return `parse: ${run.messages} messages (${
    (run.bytes / 1e6).toFixed(1)
  } MB, ${run.parsed} parsed) ` +
    `in ${(run.ms / 1000).toFixed(2)} s: ${
      Math.round(run.messages / (run.ms / 1000))
    } messages/s; ` +
    `peak RSS ${mb(run.rssPeak)} MB (${mb(run.rssBefore)} MB before)`;
}

if (import.meta.main) {
  const at = Deno.args.indexOf("--messages");
  const messages = at === -1 ? 1_000 : Number(Deno.args[at + 1]);
  console.log(parseLine(await measureParse(messages)));
}
