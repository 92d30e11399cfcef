import assert from "node:assert/strict";
import { join } from "node:path";
// @ts-types="@modelcontextprotocol/sdk/client/index"
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
// @ts-types="@modelcontextprotocol/sdk/client/stdio"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
// @ts-types="@modelcontextprotocol/sdk/client/streamableHttp"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { REPO_ROOT } from "../internal/cli.ts";
import { ServeProcess } from "../internal/serve_process.ts";
import { initializeRequest } from "../internal/mcp_initialize.ts";

/** True when nothing is at `path`. */
async function absent(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return false;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return true;
    throw error;
  }
}

/**
 * Deno's cache, named outright for a child given another home folder: found
 * from the home folder otherwise, it would be a new one, filled from the network.
 */
const DENO_DIR = JSON.parse(
  new TextDecoder().decode(
    (await new Deno.Command(Deno.execPath(), { args: ["info", "--json"] }).output()).stdout,
  ),
).denoDir as string;

/** A serve whose person's home folder is `userHome` (the real one is never touched). */
function serveWithHome(home: string, userHome: string): ServeProcess {
  const saved = { HOME: Deno.env.get("HOME"), DENO_DIR: Deno.env.get("DENO_DIR") };
  // The child takes this process's environment as it is spawned, in the constructor.
  Deno.env.set("HOME", userHome);
  Deno.env.set("DENO_DIR", DENO_DIR);
  try {
    return new ServeProcess(home);
  } finally {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) Deno.env.delete(name);
      else Deno.env.set(name, value);
    }
  }
}

/** `deno task mcp --project <project>` with its own installation and home folder. */
function mcpTask(home: string, userHome: string, project: string) {
  return {
    command: Deno.execPath(),
    args: ["task", "-q", "mcp", "--project", project],
    cwd: REPO_ROOT.pathname,
    env: { SYNC_HOME: home, HOME: userHome, DENO_DIR, SYNC_PORT: "0", NO_COLOR: "1" },
  };
}

/** Stops the serve a run started in the background in `home`, if one did. */
async function stopBackgroundServe(home: string): Promise<void> {
  let pid: number;
  try {
    pid = JSON.parse(await Deno.readTextFile(join(home, "owner.json"))).pid;
  } catch {
    return;
  }
  try {
    Deno.kill(pid, "SIGTERM");
  } catch { /* gone */ }
}

Deno.test("`McpEndpoint` and `sync mcp` refuse the folders the app refuses, writing nothing there", async (t) => {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "sync-mcp-folders-" }));
  const home = join(root, "installation");
  // The person's home folder, as the serve and the bridge are told it.
  const person = join(root, "person");
  const project = join(person, "project");
  await Deno.mkdir(project, { recursive: true });
  const rootHadSync = !await absent("/.sync");
  const serve = serveWithHome(home, person);
  const lone = join(root, "lone-installation");
  try {
    const served = new URL(await serve.url());
    const token = served.searchParams.get("token")!;
    const headers = {
      authorization: `Bearer ${token}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
    };
    /** What the app's `POST /api/projects/open` says of `folder`. */
    const appRefusal = async (folder: string) => {
      const response = await fetch(new URL("/api/projects/open", served), {
        method: "POST",
        headers,
        body: JSON.stringify({ path: folder }),
      });
      assert.equal(response.status, 400);
      return (await response.json()).error as string;
    };
    const mcpUrl = (folder: string) => {
      const url = new URL("/mcp", served);
      url.searchParams.set("project", folder);
      return url;
    };
    const cases = [
      { name: "the home folder", folder: person, words: /it is your home folder/ },
      { name: "the filesystem root", folder: "/", words: /it is the filesystem root/ },
    ];

    for (const { name, folder, words } of cases) {
      await t.step(`/mcp refuses ${name} on initialize with the app's words`, async () => {
        const said = await appRefusal(folder);
        assert.match(said, words);
        const response = await fetch(mcpUrl(folder), {
          method: "POST",
          headers,
          body: initializeRequest(),
        });
        assert.equal(response.status, 400);
        const body = await response.json();
        assert.equal(body.jsonrpc, "2.0");
        assert.equal(body.error.code, -32602);
        assert.equal(body.error.message, said);
        const client = new Client({ name: "http-folders", version: "1.0.0" });
        await assert.rejects(
          () =>
            client.connect(
              new StreamableHTTPClientTransport(mcpUrl(folder), {
                requestInit: { headers: { authorization: `Bearer ${token}` } },
              }),
            ),
          words,
        );
        await client.close().catch(() => {});
      });
    }

    await t.step("a project inside the home folder is opened", async () => {
      const client = new Client({ name: "http-folders", version: "1.0.0" });
      await client.connect(
        new StreamableHTTPClientTransport(mcpUrl(project), {
          requestInit: { headers: { authorization: `Bearer ${token}` } },
        }),
      );
      try {
        const { tools } = await client.listTools();
        assert.ok(tools.some((tool) => tool.name === "memory_list"));
      } finally {
        await client.close();
      }
    });

    for (const { name, folder, words } of cases) {
      await t.step(`\`sync mcp\` refuses ${name} at once, starting no serve`, async () => {
        const task = mcpTask(lone, person, folder);
        const done = await new Deno.Command(task.command, {
          args: task.args,
          cwd: task.cwd,
          env: task.env,
          stdin: "null",
          stdout: "piped",
          stderr: "piped",
        }).output();
        const stderr = new TextDecoder().decode(done.stderr);
        assert.equal(done.code, 2, stderr);
        assert.match(stderr, words);
        assert.ok(stderr.includes(await appRefusal(folder)), stderr);
        assert.equal(new TextDecoder().decode(done.stdout), "");
        assert.ok(await absent(join(lone, "owner.json")), "a serve was started");
      });
    }

    await t.step(
      "`sync mcp` passes on the refusal of a serve whose home folder it is",
      async () => {
        // The bridge's own home is elsewhere; the serve's is `person`.
        const client = new Client({ name: "stdio-folders", version: "1.0.0" });
        const transport = new StdioClientTransport({
          ...mcpTask(home, root, person),
          stderr: "pipe",
        });
        await assert.rejects(
          () => client.connect(transport),
          (error: Error & { code?: number }) => {
            assert.equal(error.code, -32602);
            assert.match(error.message, /Cannot open .* as a project: it is your home folder/);
            return true;
          },
        );
        await client.close().catch(() => {});
      },
    );

    await t.step("nothing was written in the refused folders", async () => {
      assert.ok(await absent(join(person, ".sync")), `${person}/.sync was made`);
      if (!rootHadSync) assert.ok(await absent("/.sync"), "/.sync was made");
    });
  } finally {
    await serve.stop("SIGTERM");
    await stopBackgroundServe(lone);
    await Deno.remove(root, { recursive: true }).catch(() => {});
  }
});
