import assert from "node:assert/strict";
import { join } from "node:path";
// @ts-types="@modelcontextprotocol/sdk/client/index"
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
// @ts-types="@modelcontextprotocol/sdk/client/stdio"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
// @ts-types="@modelcontextprotocol/sdk/client/streamableHttp"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { REPO_ROOT, runSync } from "../internal/cli.ts";
import { type PackageSpec, writePackage } from "../internal/packages.ts";
import { ServeProcess } from "../internal/serve_process.ts";
import { callJson, exerciseClient, TOOLS_PACKAGE, writeLaterPackage } from "./_scenario.ts";
import { initializeRequest } from "../internal/mcp_initialize.ts";
import { spawnMcp, stopProcess } from "../internal/mcp_child.ts";

/** A home, a project with {@linkcode TOOLS_PACKAGE} installed (through whoever owns the home). */
async function installation() {
  const root = await Deno.makeTempDir({ prefix: "sync-mcp-" });
  const home = join(root, "home");
  const project = join(root, "project");
  await Deno.mkdir(project);
  const realProject = await Deno.realPath(project);
  async function install(spec: PackageSpec): Promise<void> {
    const dir = await writePackage(join(root, "packages"), spec);
    const done = await runSync(home, ["install", dir, "--project", project, "--approve"]);
    assert.equal(done.code, 0, done.stderr);
  }
  return {
    home,
    /** Removes the installation and the project (once every serve over them has stopped). */
    remove: () => Deno.remove(root, { recursive: true }),
    project: realProject,
    install,
    place: {
      seed: async () => {
        const done = await runSync(home, ["call", "tools", "tools.seed", "--project", project]);
        assert.equal(done.code, 0, done.stderr);
      },
      installLater: async () => {
        const dir = await writeLaterPackage(join(root, "packages"));
        const done = await runSync(home, ["install", dir, "--project", project, "--approve"]);
        assert.equal(done.code, 0, done.stderr);
        return dir;
      },
    },
    /** The receipts `sync receipts --json` prints, newest first. */
    async receipts(): Promise<Record<string, unknown>[]> {
      const done = await runSync(home, ["receipts", "--project", project, "--json"]);
      assert.equal(done.code, 0, done.stderr);
      return done.stdout.trim().split("\n").map((line) => JSON.parse(line));
    },
  };
}

/** `deno task mcp --project <project>` as an MCP client spawns it. */
function stdioTransport(home: string, project: string): StdioClientTransport {
  return new StdioClientTransport({
    command: Deno.execPath(),
    args: ["task", "-q", "mcp", "--project", project],
    cwd: REPO_ROOT.pathname,
    env: { SYNC_HOME: home, SYNC_PORT: "0", NO_COLOR: "1" },
    stderr: "pipe",
  });
}

/** Everything a stream says, collected as it comes. */
function collect(stream: { on(event: "data", listener: (chunk: unknown) => void): void } | null) {
  const said: string[] = [];
  stream?.on("data", (chunk) => said.push(String(chunk)));
  return said;
}

Deno.test("`deno task serve`'s /mcp answers the SDK's client over Streamable HTTP", async (t) => {
  const place = await installation();
  const serve = new ServeProcess(place.home);
  try {
    const served = new URL(await serve.url());
    await place.install(TOOLS_PACKAGE);
    const url = new URL("/mcp", served);
    url.searchParams.set("project", place.project);
    const client = new Client({ name: "http-test", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(url, {
        requestInit: {
          headers: { authorization: `Bearer ${served.searchParams.get("token")}` },
        },
      }),
    );
    try {
      await exerciseClient(t, client, place.place);
      await t.step("the receipts say occasion agent and the client as the source", async () => {
        const receipts = await place.receipts();
        const ping = receipts.find((r) => r.handler === "later.ping")!;
        assert.deepEqual(ping.occasion, { kind: "agent" });
        assert.deepEqual(ping.source, { kind: "agent", name: "http-test" });
      });
    } finally {
      await client.close();
    }
  } finally {
    await serve.stop("SIGTERM");
    await place.remove();
  }
});

Deno.test("`deno task mcp` bridges stdio to the serve that runs", async (t) => {
  const place = await installation();
  const serve = new ServeProcess(place.home);
  try {
    await serve.url();
    await place.install(TOOLS_PACKAGE);
    const transport = stdioTransport(place.home, place.project);
    const stderr = collect(transport.stderr as never);
    const client = new Client({ name: "stdio-test", version: "1.0.0" });
    await client.connect(transport);
    try {
      await exerciseClient(t, client, place.place);
      await t.step(
        "a person's agent on stdio is attributed as one, through the serve",
        async () => {
          const receipts = await place.receipts();
          const echo = receipts.find((r) => r.handler === "tools.echo")!;
          assert.deepEqual(echo.occasion, { kind: "agent" });
          assert.deepEqual(echo.source, { kind: "agent", name: "stdio-test" });
          assert.doesNotMatch(stderr.join(""), /started one/);
        },
      );
    } finally {
      await client.close();
    }
  } finally {
    await serve.stop("SIGTERM");
    await place.remove();
  }
});

Deno.test("`deno task mcp` starts a serve in the background when none runs", async (t) => {
  const place = await installation();
  // With no serve, the install owns the installation for its own length.
  await place.install(TOOLS_PACKAGE);
  const transport = stdioTransport(place.home, place.project);
  const stderr = collect(transport.stderr as never);
  const client = new Client({ name: "stdio-alone", version: "1.0.0" });
  let servePid: number | undefined;
  try {
    await client.connect(transport);
    const note = JSON.parse(await Deno.readTextFile(join(place.home, "owner.json")));
    servePid = note.pid;
    await t.step("it says on stderr that it started one, which, and where the app is", async () => {
      assert.equal(note.command, "serve");
      assert.match(
        stderr.join(""),
        new RegExp(`started one in the background \\(pid ${note.pid}\\)`),
      );
      // The line `serve` prints, which a serve started in the background prints nowhere.
      const token = (await Deno.readTextFile(join(place.home, "token"))).trim();
      assert.ok(
        stderr.join("").includes(
          `sync mcp: Sync is serving at http://127.0.0.1:${note.port}/?token=${token}\n`,
        ),
        stderr.join(""),
      );
    });
    await t.step("the tools answer through it", async () => {
      const { tools } = await client.listTools();
      assert.ok(tools.some((tool) => tool.name === "tools_echo"));
      assert.deepEqual(await callJson(client, "tools_echo", { text: "alone" }), {
        text: "alone",
        occasion: "agent",
      });
    });
    await client.close();
    await t.step("the serve outlives the client, and the CLI sends it its commands", async () => {
      const receipts = await place.receipts();
      assert.equal(receipts[0].handler, "tools.echo");
      const again = JSON.parse(await Deno.readTextFile(join(place.home, "owner.json")));
      assert.equal(again.pid, servePid);
    });
  } finally {
    await client.close().catch(() => {});
    if (servePid !== undefined) await stopProcess(servePid);
    await place.remove();
  }
});

Deno.test("`deno task mcp` goes on in a new session when the serve it bridged to is killed", async (t) => {
  const place = await installation();
  const serve = new ServeProcess(place.home);
  let backgroundPid: number | undefined;
  try {
    await serve.url();
    await place.install(TOOLS_PACKAGE);
    const transport = stdioTransport(place.home, place.project);
    const stderr = collect(transport.stderr as never);
    const client = new Client({ name: "stdio-lasting", version: "1.0.0" });
    let toolsChanged = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      toolsChanged++;
    });
    await client.connect(transport);
    try {
      assert.deepEqual(await callJson(client, "tools_echo", { text: "before" }), {
        text: "before",
        occasion: "agent",
      });
      // Killed outright: its owner note stays behind, naming a port anybody may take.
      await serve.stop("SIGKILL");

      await t.step("the next call is answered through a serve started in its place", async () => {
        assert.deepEqual(await callJson(client, "tools_echo", { text: "after" }), {
          text: "after",
          occasion: "agent",
        });
        const note = JSON.parse(await Deno.readTextFile(join(place.home, "owner.json")));
        backgroundPid = note.pid;
        assert.notEqual(note.pid, serve.pid);
        assert.match(
          stderr.join(""),
          new RegExp(
            `the sync serve that owned .* \\(pid ${serve.pid}\\) is gone, its note left behind; ` +
              `started one in the background \\(pid ${note.pid}\\)`,
          ),
        );
        assert.match(
          stderr.join(""),
          new RegExp(
            `sync mcp: lost the serve \\(pid ${serve.pid}\\); reconnected in a new session ` +
              `with the serve \\(pid ${note.pid}\\)\n`,
          ),
        );
      });

      await t.step("the client is told the tools may have changed, and lists them", async () => {
        assert.ok(toolsChanged >= 1);
        const { tools } = await client.listTools();
        assert.ok(tools.some((tool) => tool.name === "tools_echo"));
      });

      await t.step("a session the serve let go of is opened again", async () => {
        // The serve keeps 32 sessions; opening 32 more lets go of the bridge's, unused longest.
        const note = JSON.parse(await Deno.readTextFile(join(place.home, "owner.json")));
        const token = (await Deno.readTextFile(join(place.home, "token"))).trim();
        const url = new URL(`http://127.0.0.1:${note.port}/mcp`);
        url.searchParams.set("project", place.project);
        const others: Client[] = [];
        try {
          for (let n = 0; n < 32; n++) {
            const other = new Client({ name: `crowd-${n}`, version: "1.0.0" });
            await other.connect(
              new StreamableHTTPClientTransport(url, {
                requestInit: { headers: { authorization: `Bearer ${token}` } },
              }),
            );
            others.push(other);
          }
          const reconnected = () =>
            stderr.join("").split("reconnected in a new session").length - 1;
          const before = reconnected();
          assert.deepEqual(await callJson(client, "tools_echo", { text: "again" }), {
            text: "again",
            occasion: "agent",
          });
          assert.equal(reconnected(), before + 1);
          assert.match(
            stderr.join(""),
            new RegExp(
              `sync mcp: the serve \\(pid ${note.pid}\\) no longer had the session; ` +
                `reconnected in a new session with the serve \\(pid ${note.pid}\\)\n`,
            ),
          );
        } finally {
          await Promise.all(others.map((other) => other.close().catch(() => {})));
        }
      });

      await t.step("stderr has one line of the bridge's for each, none of the SDK's", () => {
        assert.equal(stderr.join("").split("reconnected in a new session").length - 1, 2);
        assert.doesNotMatch(
          stderr.join(""),
          /SSE stream disconnected|fetch failed|Failed to reconnect|Maximum reconnection/,
        );
      });

      await t.step("the calls are attributed to the client as the one before them", async () => {
        const echoes = (await place.receipts()).filter((r) => r.handler === "tools.echo");
        assert.equal(echoes.length, 3);
        for (const echo of echoes) {
          assert.deepEqual(echo.source, { kind: "agent", name: "stdio-lasting" });
        }
      });
    } finally {
      await client.close();
    }
  } finally {
    await serve.stop("SIGTERM");
    if (backgroundPid !== undefined) await stopProcess(backgroundPid);
    await place.remove();
  }
});

Deno.test("`deno task mcp` says on stderr what it could not read on stdin, and reads on", async (t) => {
  const place = await installation();
  const serve = new ServeProcess(place.home);
  try {
    await serve.url();
    const child = spawnMcp(place.home, place.project);
    const stdin = child.stdin.getWriter();
    const stdout = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
    const stderr = child.stderr.pipeThrough(new TextDecoderStream());
    const said: string[] = [];
    const saying = (async () => {
      for await (const chunk of stderr) said.push(chunk);
    })();
    const write = (line: string) => stdin.write(new TextEncoder().encode(line + "\n"));
    try {
      await write("not json");
      await write(JSON.stringify({ hello: "world" }));
      await write(initializeRequest("raw-lines"));
      let out = "";
      while (!out.includes("\n")) {
        const { value, done } = await stdout.read();
        if (done) break;
        out += value;
      }
      await t.step("the line after them is answered, and is the first answer", () => {
        const first = JSON.parse(out.split("\n")[0]);
        assert.equal(first.id, 1);
        assert.equal(first.result.serverInfo.name, "sync-mcp");
      });
      await t.step("stderr says which lines were not answered, and why", () => {
        const text = said.join("");
        assert.match(text, /sync mcp: a line on stdin is not JSON \(.+\); it was not answered/);
        assert.match(
          text,
          /sync mcp: a line on stdin is JSON but not a JSON-RPC message; it was not answered/,
        );
      });
    } finally {
      await stdin.close().catch(() => {});
      await stdout.cancel().catch(() => {});
      await child.status;
      await saying;
    }
  } finally {
    await serve.stop("SIGTERM");
    await place.remove();
  }
});
