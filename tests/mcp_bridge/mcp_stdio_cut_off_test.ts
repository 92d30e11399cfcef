import assert from "node:assert/strict";
import { join } from "node:path";
// @ts-types="@modelcontextprotocol/sdk/client/index"
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
// @ts-types="@modelcontextprotocol/sdk/client/stdio"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { REPO_ROOT, runSync } from "../internal/cli.ts";
import { stopProcess } from "../internal/mcp_child.ts";
import { type PackageSpec, writePackage } from "../internal/packages.ts";
import { ServeProcess } from "../internal/serve_process.ts";

/** A package whose agent tool says it runs, then runs until its time is up. */
const LONG_PACKAGE: PackageSpec = {
  id: "long",
  handlers: ["long.run"],
  service: `export default function register() {
  return {
    "long.run": () => {
      console.log("long.run is running");
      for (;;);
    },
  };
}
`,
  manifest: {
    handlers: {
      "long.run": {
        description: "Runs until stopped",
        agent: { description: "Run until stopped", input: { type: "object", properties: {} } },
      },
    },
  },
};

Deno.test("`bridgeStdio()` answers a call the serve went away in the middle of", async (t) => {
  const root = await Deno.makeTempDir({ prefix: "sync-mcp-cut-off-" });
  const home = join(root, "home");
  const project = join(root, "project");
  await Deno.mkdir(project);
  const serve = new ServeProcess(home);
  const transport = new StdioClientTransport({
    command: Deno.execPath(),
    args: ["task", "-q", "mcp", "--project", project],
    cwd: REPO_ROOT.pathname,
    env: { SYNC_HOME: home, SYNC_PORT: "0", NO_COLOR: "1" },
    stderr: "pipe",
  });
  const said: string[] = [];
  transport.stderr?.on("data", (chunk: unknown) => said.push(String(chunk)));
  const client = new Client({ name: "cut-off-test", version: "1.0.0" });
  let backgroundPid: number | undefined;
  try {
    await serve.url();
    const dir = await writePackage(join(root, "packages"), LONG_PACKAGE);
    const installed = await runSync(home, ["install", dir, "--project", project, "--approve"]);
    assert.equal(installed.code, 0, installed.stderr);
    await client.connect(transport);

    await t.step("the call is answered with an error once the serve is killed", async () => {
      // Without the bridge's answer, only the client's own timeout would end the call.
      const call = client.callTool({ name: "long_run", arguments: {} }, undefined, {
        timeout: 60_000,
      });
      const refused = assert.rejects(call, /cut off before it came/);
      await serve.line(/long\.run is running/);
      await serve.stop("SIGKILL");
      await refused;
      assert.match(said.join(""), /did not finish answering a request/);
    });

    await t.step("the next call goes to a serve started in its place", async () => {
      const { tools } = await client.listTools();
      assert.ok(tools.some((tool) => tool.name === "long_run"));
      backgroundPid = JSON.parse(await Deno.readTextFile(join(home, "owner.json"))).pid;
      assert.notEqual(backgroundPid, serve.pid);
    });
  } finally {
    await client.close();
    await serve.stop("SIGTERM").catch(() => {});
    if (backgroundPid === undefined) {
      backgroundPid = await Deno.readTextFile(join(home, "owner.json"))
        .then((text) => JSON.parse(text).pid as number, () => undefined);
    }
    if (backgroundPid !== undefined && backgroundPid !== serve.pid) {
      await stopProcess(backgroundPid);
    }
    await Deno.remove(root, { recursive: true });
  }
});
