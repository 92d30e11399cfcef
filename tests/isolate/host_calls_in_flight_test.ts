import assert from "node:assert/strict";
import { join } from "node:path";
import { testHost } from "../internal/packages.ts";
import { DEFAULT_LIMITS } from "../../runtime/limits.ts";

/**
 * A server in a child process, so that what it holds is not counted in this
 * process's memory: `/body` answers `bytes` bytes, `/stats` how many requests
 * it held at once at most, and how many it answered.
 */
const SERVER = `
const bytes = Number(Deno.args[0]);
const body = new Uint8Array(bytes).fill(120);
let inFlight = 0, most = 0, served = 0;
const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen({ port }) { console.log(port); } }, async (request) => {
  const path = new URL(request.url).pathname;
  if (path === "/stats") return Response.json({ most, served });
  inFlight++;
  most = Math.max(most, inFlight);
  // Held a moment, so that requests the host lets out together overlap here.
  await new Promise((resolve) => setTimeout(resolve, 5));
  inFlight--;
  served++;
  return new Response(body);
});
`;

interface Server {
  port: number;
  stats(): Promise<{ most: number; served: number }>;
  /** Stops the server at once; requests still open fail. */
  kill(): void;
  close(): Promise<void>;
}

async function startServer(bytes: number): Promise<Server> {
  const dir = await Deno.makeTempDir({ prefix: "sync-flood-" });
  const script = join(dir, "server.ts");
  await Deno.writeTextFile(script, SERVER);
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-net=127.0.0.1", script, String(bytes)],
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let seen = "";
  while (!seen.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) throw new Error("the test server stopped before it listened");
    seen += value;
  }
  reader.releaseLock();
  const port = Number(seen.trim());
  let killed = false;
  const kill = () => {
    if (killed) return;
    killed = true;
    child.kill("SIGKILL");
  };
  return {
    port,
    async stats() {
      return await (await fetch(`http://127.0.0.1:${port}/stats`)).json();
    },
    kill,
    async close() {
      kill();
      await child.status;
      await child.stdout.cancel().catch(() => {});
      await Deno.remove(dir, { recursive: true });
    },
  };
}

const FLOOD = `
import { net } from "@sync/extension-api/service";
export default function register() {
  return {
    "flood.fetchAll": async ({ url, count }) => {
      const started = [];
      for (let i = 0; i < count; i++) {
        started.push(net.fetch({ url }).then((r) => "body " + r.body.length, (e) => e.name));
      }
      const tally = {};
      for (const result of await Promise.all(started)) tally[result] = (tally[result] ?? 0) + 1;
      return tally;
    },
  };
}`;

const MiB = 1024 * 1024;

Deno.test("1,000 net.fetch of ~1 MiB started at once: every one is answered and the host's memory stays bounded", async () => {
  // Just under the default body cap, so every fetch may succeed.
  const bodyBytes = DEFAULT_LIMITS.maxFetchBytes - 1024;
  const server = await startServer(bodyBytes);
  // The default limits, but time enough for 1,000 MiB to cross on a loaded machine.
  const env = await testHost({ limits: { timeoutMs: 240_000, fetchTimeoutMs: 120_000 } });
  // Far above what the bounded host needs, far below what 1,000 answers held at once take.
  const bound = 400 * MiB;
  const base = Deno.memoryUsage().rss;
  let peak = 0;
  // Once over the bound, the server is stopped so that an unbounded host fails
  // fast instead of taking the machine's memory.
  const sampler = setInterval(() => {
    peak = Math.max(peak, Deno.memoryUsage().rss - base);
    if (peak > bound) server.kill();
  }, 20);
  try {
    await env.install({
      id: "flood",
      handlers: ["flood.fetchAll"],
      permissions: ["background", `net:127.0.0.1:${server.port}`],
      service: FLOOD,
    });
    const answer = await env.call("flood", "flood.fetchAll", {
      url: `http://127.0.0.1:${server.port}/body`,
      count: 1_000,
    });
    peak = Math.max(peak, Deno.memoryUsage().rss - base);
    assert.ok(peak <= bound, `the host grew by ${Math.round(peak / MiB)} MiB`);
    assert.deepEqual(answer, { [`body ${bodyBytes}`]: 1_000 }, "every fetch was answered in full");
    const { most, served } = await server.stats();
    assert.equal(served, 1_000);
    // Each fetch holds its body cap of the bytes a call may have in flight.
    const allowed = Math.floor(
      DEFAULT_LIMITS.maxHostBytesInFlight / (DEFAULT_LIMITS.maxFetchBytes + 1),
    );
    assert.ok(most <= allowed, `${most} requests were in flight at once; at most ${allowed}`);
  } finally {
    clearInterval(sampler);
    await env.close();
    await server.close();
  }
});

Deno.test("small host calls started at once are let out at most maxHostCallsInFlight at a time", async () => {
  const server = await startServer(16);
  // A small body cap, so that bytes in flight do not bind before the count does.
  const env = await testHost({ limits: { timeoutMs: 120_000, maxFetchBytes: 1024 } });
  try {
    await env.install({
      id: "flood",
      handlers: ["flood.fetchAll"],
      permissions: ["background", `net:127.0.0.1:${server.port}`],
      service: FLOOD,
    });
    const answer = await env.call("flood", "flood.fetchAll", {
      url: `http://127.0.0.1:${server.port}/body`,
      count: 300,
    });
    assert.deepEqual(answer, { "body 16": 300 });
    const { most } = await server.stats();
    assert.ok(
      most <= DEFAULT_LIMITS.maxHostCallsInFlight,
      `${most} requests were in flight at once; at most ${DEFAULT_LIMITS.maxHostCallsInFlight}`,
    );
  } finally {
    await env.close();
    await server.close();
  }
});
