import assert from "node:assert/strict";
import { join } from "node:path";
// @ts-types="@modelcontextprotocol/sdk/client/index"
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
// @ts-types="@modelcontextprotocol/sdk/client/stdio"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
// @ts-types="@modelcontextprotocol/sdk/client/streamableHttp"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { listReceipts } from "../../runtime/host/mod.ts";
import { McpEndpoint } from "../../runtime/mcp/mod.ts";
import type { Receipt } from "../../runtime/types.ts";
import { createApp } from "../../runtime/web/app.ts";
import { REPO_ROOT, runSync } from "../internal/cli.ts";
import { type PackageSpec, testHost, writePackage } from "../internal/packages.ts";
import { ServeProcess } from "../internal/serve_process.ts";
import { callJson } from "./_scenario.ts";

const TOKEN = "installation-token-for-tests";

/** How long a condition may take before the test gives up on it. */
const WITHIN_MS = 30_000;

/**
 * A package whose agent tool writes a record, says it waits, and waits until
 * another handler writes `slow.note/go`: a call that would commit its record
 * once let go, unless it is stopped first.
 */
const SLOW_PACKAGE: PackageSpec = {
  id: "slow",
  handlers: ["slow.wait", "slow.go"],
  types: { "note.json": "slow.note" },
  service: `import { memory } from "@sync/extension-api/service";
export default function register() {
  return {
    "slow.wait": async () => {
      await memory.write({ key: "slow.note/written", title: "Written", content: "by slow.wait" });
      console.log("slow.wait is waiting");
      // Slowly: a call may make only so many host calls.
      while ((await memory.record("slow.note/go")) === null) for (let i = 0; i < 100000; i++);
      return "done";
    },
    "slow.go": async () => {
      await memory.write({ key: "slow.note/go", title: "Go", content: "go" });
      return "go";
    },
  };
}
`,
  manifest: {
    handlers: {
      "slow.wait": {
        description: "Writes a note and waits for slow.go",
        agent: {
          description: "Write a note, then wait",
          input: { type: "object", properties: {} },
        },
      },
      "slow.go": { description: "Lets slow.wait go" },
    },
  },
};

/** Waits until `found` answers something, or fails saying `what`. */
async function until<T>(what: string, found: () => Promise<T | undefined> | T | undefined) {
  const deadline = Date.now() + WITHIN_MS;
  while (Date.now() < deadline) {
    const value = await found();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`Gave up waiting: ${what}`);
}

/** What a transport's test does around a cancelled call. */
interface CancelPlace {
  /** Resolves once `slow.wait` has staged its record and says it waits. */
  waiting(): Promise<void>;
  /** Calls `slow.go` as a person. */
  letGo(): Promise<void>;
  /** The receipts of `slow.wait`, newest first. */
  receipts(): Promise<Pick<Receipt, "outcome" | "handler" | "error">[]>;
}

/** Cancels a call of `slow.wait` with the client's signal, and checks nothing of it commits. */
async function cancelSlowCall(t: Deno.TestContext, client: Client, place: CancelPlace) {
  await t.step("a call cancelled by its client stops and commits nothing", async () => {
    const cancel = new AbortController();
    const call = client.callTool({ name: "slow_wait", arguments: {} }, undefined, {
      signal: cancel.signal,
      timeout: 120_000,
    });
    const refused = assert.rejects(call);
    await place.waiting();
    cancel.abort("the test called it off");
    await refused;
    const receipt = await until("the cancelled call's receipt", async () => {
      return (await place.receipts()).find((receipt) => receipt.handler === "slow.wait");
    });
    assert.equal(receipt.outcome, "cancelled", JSON.stringify(receipt));
    assert.equal(receipt.error?.name, "CancelledError");
    // Had it only been left waiting, letting it go would commit its record now.
    await place.letGo();
    assert.notEqual(await callJson(client, "memory_record", { key: "slow.note/go" }), null);
    assert.equal(await callJson(client, "memory_record", { key: "slow.note/written" }), null);
    assert.equal((await place.receipts()).filter((r) => r.handler === "slow.wait").length, 1);
  });

  await t.step("the same tool answers its next call", async () => {
    assert.equal(await callJson(client, "slow_wait", {}), "done");
    assert.notEqual(await callJson(client, "memory_record", { key: "slow.note/written" }), null);
  });
}

Deno.test("`ProjectServer` stops a handler call its client cancels over Streamable HTTP", async (t) => {
  const env = await testHost({ limits: { timeoutMs: 60_000 } });
  const mcp = new McpEndpoint(env.host, { token: TOKEN });
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    (request) => app.fetch(request),
  );
  const app = createApp(env.host, { token: TOKEN, port: server.addr.port, mcp });
  const client = new Client({ name: "cancel-test", version: "1.0.0" });
  try {
    await env.install(SLOW_PACKAGE);
    const url = new URL(`http://127.0.0.1:${server.addr.port}/mcp`);
    url.searchParams.set("project", env.project);
    await client.connect(
      new StreamableHTTPClientTransport(url, {
        requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
      }),
    );
    await cancelSlowCall(t, client, {
      waiting: () =>
        until("slow.wait to wait", () => env.logs.some((l) => /is waiting/.test(l)) || undefined)
          .then(() => {}),
      letGo: async () => {
        await env.call("slow", "slow.go");
      },
      receipts: () => listReceipts(env.kv, env.project, { packageId: "slow", limit: 20 }),
    });
  } finally {
    await client.close();
    await mcp.close();
    await server.shutdown();
    await env.close();
  }
});

Deno.test("`bridgeStdio()` passes a client's cancel on, and the serve stops the call", async (t) => {
  const root = await Deno.makeTempDir({ prefix: "sync-mcp-cancel-" });
  const home = join(root, "home");
  const project = join(root, "project");
  await Deno.mkdir(project);
  const serve = new ServeProcess(home);
  const client = new Client({ name: "stdio-cancel-test", version: "1.0.0" });
  try {
    await serve.url();
    const dir = await writePackage(join(root, "packages"), SLOW_PACKAGE);
    const installed = await runSync(home, ["install", dir, "--project", project, "--approve"]);
    assert.equal(installed.code, 0, installed.stderr);
    await client.connect(
      new StdioClientTransport({
        command: Deno.execPath(),
        args: ["task", "-q", "mcp", "--project", project],
        cwd: REPO_ROOT.pathname,
        env: { SYNC_HOME: home, SYNC_PORT: "0", NO_COLOR: "1" },
        stderr: "pipe",
      }),
    );
    await cancelSlowCall(t, client, {
      waiting: () => serve.line(/slow\.wait is waiting/, WITHIN_MS).then(() => {}),
      letGo: async () => {
        const done = await runSync(home, ["call", "slow", "slow.go", "--project", project]);
        assert.equal(done.code, 0, done.stderr);
      },
      receipts: async () => {
        const done = await runSync(home, ["receipts", "--project", project, "--json"]);
        assert.equal(done.code, 0, done.stderr);
        const lines = done.stdout.trim().split("\n").filter((line) => line.startsWith("{"));
        return lines.map((line) => JSON.parse(line));
      },
    });
  } finally {
    await client.close();
    await serve.stop("SIGTERM");
    await Deno.remove(root, { recursive: true });
  }
});
