/**
 * A loop of host calls to profile: the installation KV on disk, a handler
 * doing one `memory.list` of 3 out of 50 records (or a trivial one, `noop`),
 * called one after another. Prints the time per call and the CPU each group
 * of threads used per call (`thread_cpu.ts`); run it under `--cpu-prof` to
 * see where a call's CPU goes (a profile for the main thread and one for the
 * worker), and alternately with another version in the same minute to
 * compare the two, since a shared machine moves both alike:
 *
 * ```sh
 * deno run --unstable-kv --unstable-worker-options --allow-read --allow-write --allow-env \
 *   --allow-run=ps,cat,getconf --cpu-prof --cpu-prof-dir=/tmp/prof \
 *   tests/bench/call_profile.ts list 2000
 * ```
 *
 * @module
 */
import { join } from "node:path";
import process from "node:process";
import { Host } from "../../runtime/host/host.ts";
import type { CallOptions } from "../../runtime/host/call.ts";
import { DEFAULT_LIMITS } from "../../runtime/limits.ts";
import { installPackage } from "../../runtime/lifecycle/install.ts";
import { writeRecord } from "../../runtime/memory/write_record.ts";
import { openInstallation } from "../../runtime/projects/home.ts";
import { writePackage } from "../internal/packages.ts";
import { cpuPerCallByGroup, threadStats, ticksPerSecond } from "./thread_cpu.ts";

const LIST_SOURCE = `import { memory } from "@sync/extension-api/service";
export default function register() {
  return {
    "prof.list": async () => {
      const { records } = await memory.list({ kind: "prof.item", limit: 3 });
      return { ok: true, count: records.length };
    },
    "prof.noop": () => ({ ok: true }),
  };
}
`;
const CALL: CallOptions = { occasion: { kind: "extension" }, source: { kind: "person" } };

const which = Deno.args[0] === "noop" ? "prof.noop" : "prof.list";
const calls = Number(Deno.args[1] ?? 2000);

const root = await Deno.makeTempDir({ prefix: "sync-call-profile-" });
const kv = await openInstallation(join(root, "home"));
const host = new Host({
  kv,
  home: join(root, "home"),
  limits: { ...DEFAULT_LIMITS, rateLimit: 1e9 },
  log: () => {},
  claimAfterMs: 10_000,
});
try {
  const dir = await writePackage(root, {
    id: "prof",
    handlers: ["prof.list", "prof.noop"],
    service: LIST_SOURCE,
  });
  const projectDir = join(root, "project");
  await Deno.mkdir(projectDir);
  const { project } = await installPackage(host, dir, projectDir, { approve: true });
  const memory = await host.projectMemory(project);
  for (let n = 0; n < 50; n++) {
    await writeRecord(memory, { key: `prof.item/${n}`, title: `Item ${n}`, fields: { n } });
  }
  await host.pool.warm();
  const call = () => host.callHandler(project, "prof", which, CALL);
  for (let i = 0; i < 200; i++) await call();
  const hz = await ticksPerSecond();
  const before = await threadStats();
  const cpu = process.cpuUsage();
  const started = performance.now();
  for (let i = 0; i < calls; i++) await call();
  const ms = performance.now() - started;
  const used = process.cpuUsage(cpu);
  const byThread = cpuPerCallByGroup(before, await threadStats(), {
    pid: Deno.pid,
    calls,
    ticksPerSecond: hz,
  });
  const threads = [...byThread].map(([group, msPerCall]) =>
    `${group} ${(msPerCall * 1000).toFixed(0)}`
  );
  console.log(
    `${which}: ${calls} calls, ${(ms / calls * 1000).toFixed(0)} µs a call; CPU µs a call: ` +
      `process ${((used.user + used.system) / calls).toFixed(0)}, ${threads.join(", ")}`,
  );
} finally {
  await host.close();
  kv.close();
  await Deno.remove(root, { recursive: true });
}
