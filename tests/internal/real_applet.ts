/**
 * A real applet in a real host: one of the example packages (`extensions/mail`,
 * `extensions/calendar`) copied from its folder and installed, a task runner
 * over the host with timers the test drives (the host and its handlers keep
 * their time), the installation KV on disk, and parsers that count what they
 * parse.
 *
 * @module
 */
import { join } from "node:path";
import { TaskRunner } from "../../runtime/applets/mod.ts";
import { installPackage } from "../../runtime/lifecycle/install.ts";
import { listRecords } from "../../runtime/memory/store.ts";
import type { RecordSummary } from "../../runtime/extension_api/service.ts";
import { FakeScheduler } from "./applets.ts";
import { CountingParserPool } from "./counting_parser_pool.ts";
import { type TestHost, testHost } from "./packages.ts";

/** What a test of a real applet is given. */
export interface RealApplet {
  /** The host, installation and project. */
  env: TestHost;
  /** The runner over them. */
  runner: TaskRunner;
  /** The runner's timers and time. */
  timers: FakeScheduler;
  /** The host's parsers, counting. */
  parsers: CountingParserPool;
  /** A temp folder for the test's sources; removed on close. */
  dir: string;
  /** The records of a kind in the project's memory, by key. */
  records(kind: string): Promise<Map<string, RecordSummary>>;
  /** Stops the runner, closes the host, removes the folders. */
  close(): Promise<void>;
}

const EXTENSIONS = join(import.meta.dirname!, "..", "..", "extensions");

/**
 * Installs `extensions/<id>` (its built service module, manifest, types and
 * prompt) into a fresh host with the installation KV on disk.
 *
 * @param id `mail` or `calendar`.
 * @param options The time it starts at, in ms; the fake timers' by default.
 */
export async function realApplet(id: string, options: { at?: number } = {}): Promise<RealApplet> {
  const timers = new FakeScheduler();
  if (options.at !== undefined) timers.time = options.at;
  const parsers = new CountingParserPool();
  const env = await testHost({ onDisk: true, parsers, now: timers.now });
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "sync-test-" }));
  const runner = new TaskRunner(env.host, {
    now: timers.now,
    scheduler: timers,
    log: (line) => env.logs.push(line),
  });
  try {
    // A copy: installing never writes into the checkout.
    const copy = join(dir, `package-${id}`);
    await copyFolder(join(EXTENSIONS, id), copy, ["src"]);
    await installPackage(env.host, copy, env.project, { approve: true });
  } catch (error) {
    await env.close();
    await Deno.remove(dir, { recursive: true });
    throw error;
  }
  return {
    env,
    runner,
    timers,
    parsers,
    dir,
    async records(kind) {
      const memory = await env.host.projectMemory(env.project);
      const out = new Map<string, RecordSummary>();
      let cursor: string | undefined;
      do {
        const page = await listRecords(memory, { kind, limit: 500, cursor });
        for (const record of page.records) out.set(record.key, record);
        cursor = page.cursor ?? undefined;
      } while (cursor);
      return out;
    },
    async close() {
      await runner.stop();
      await env.close();
      await Deno.chmod(dir, 0o755).catch(() => {});
      await Deno.remove(dir, { recursive: true });
    },
  };
}

async function copyFolder(from: string, to: string, skip: string[] = []): Promise<void> {
  await Deno.mkdir(to, { recursive: true });
  for await (const entry of Deno.readDir(from)) {
    if (skip.includes(entry.name)) continue;
    if (entry.isDirectory) await copyFolder(join(from, entry.name), join(to, entry.name));
    else await Deno.copyFile(join(from, entry.name), join(to, entry.name));
  }
}
