import assert from "node:assert/strict";
import { join } from "node:path";
import { runSync } from "../internal/cli.ts";
import { initializeRequest } from "../internal/mcp_initialize.ts";
import { ServeProcess } from "../internal/serve_process.ts";
import { spawnMcp, stopProcess } from "../internal/mcp_child.ts";

/**
 * Another user's program on a port: it takes every connection, keeps every
 * byte it is sent, and answers each request as a web server would, so a
 * client that trusts "something answers HTTP here" would go on to send it
 * more.
 */
class Stranger {
  #listener: Deno.TcpListener;
  #received: Uint8Array[] = [];
  #connections = 0;
  #accepting: Promise<void>;

  constructor(port: number) {
    this.#listener = Deno.listen({ hostname: "127.0.0.1", port });
    this.#accepting = this.#accept();
  }

  /** How many connections it was offered. */
  get connections(): number {
    return this.#connections;
  }

  /** Everything it was sent, as text. */
  get received(): string {
    const decoder = new TextDecoder();
    return this.#received.map((bytes) => decoder.decode(bytes)).join("");
  }

  async #accept(): Promise<void> {
    try {
      for await (const conn of this.#listener) {
        this.#connections++;
        void this.#answer(conn);
      }
    } catch { /* closed */ }
  }

  async #answer(conn: Deno.Conn): Promise<void> {
    const buffer = new Uint8Array(64 * 1024);
    try {
      for (;;) {
        const n = await conn.read(buffer);
        if (n === null) break;
        this.#received.push(buffer.slice(0, n));
        if (new TextDecoder().decode(buffer.subarray(0, n)).includes("\r\n\r\n")) {
          await conn.write(new TextEncoder().encode(
            "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n{}",
          ));
        }
      }
    } catch { /* the client went away */ }
    try {
      conn.close();
    } catch { /* already closed */ }
  }

  async close(): Promise<void> {
    this.#listener.close();
    await this.#accepting;
  }
}

/** `deno task mcp --project <project>` as an MCP client runs it, with one `initialize` on stdin. */
async function mcpInitialize(home: string, project: string) {
  // The serve it starts picks a free port, not the stranger's.
  const child = spawnMcp(home, project);
  const stderr = new Response(child.stderr).text();
  const stdin = child.stdin.getWriter();
  const stdout = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let out = "";
  try {
    await stdin.write(new TextEncoder().encode(initializeRequest("stale-note") + "\n"));
    while (!out.includes("\n")) {
      const { value, done } = await stdout.read();
      if (done) break;
      out += value;
    }
  } finally {
    await stdin.close().catch(() => {});
    await stdout.cancel().catch(() => {});
  }
  const { code } = await child.status;
  return { code, answer: out.split("\n")[0], stderr: await stderr };
}

Deno.test("`serveOwner()` and `throughOwner()` send nothing to a stranger on a killed serve's port", async (t) => {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "sync-stale-" }));
  const home = join(root, "home");
  const project = join(root, "project");
  await Deno.mkdir(project);
  const killed = new ServeProcess(home);
  let stranger: Stranger | undefined;
  let started: number | undefined;
  try {
    const served = new URL(await killed.url());
    const token = served.searchParams.get("token")!;
    // Killed outright: its note stays behind, naming its port.
    await killed.stop("SIGKILL");
    const left = JSON.parse(await Deno.readTextFile(join(home, "owner.json")));
    assert.equal(left.pid, killed.pid);
    stranger = new Stranger(Number(served.port));

    await t.step("deno task mcp starts a serve in place of the killed one, saying so", async () => {
      const mcp = await mcpInitialize(home, project);
      const said = mcp.stderr.match(
        new RegExp(
          `^sync mcp: the sync serve that owned ${home} \\(pid ${killed.pid}\\) is gone, its ` +
            `note left behind; started one in the background \\(pid (\\d+)\\)`,
          "m",
        ),
      );
      assert.ok(said, mcp.stderr);
      started = Number(said[1]);
      assert.equal(JSON.parse(mcp.answer).result.serverInfo.name, "sync-mcp", mcp.stderr);
      const note = JSON.parse(await Deno.readTextFile(join(home, "owner.json")));
      assert.equal(note.pid, started);
      assert.equal(note.socket, join(home, "owner.sock"));
    });

    await t.step("sync list is then run by that serve, over its socket", async () => {
      const list = await runSync(home, ["list", "--project", project]);
      assert.equal(list.code, 0, list.stderr);
      assert.match(list.stdout, /Nothing is installed in this project/);
    });

    await t.step("the stranger was never even connected to", () => {
      const received = stranger!.received;
      for (const secret of [token, project, home]) {
        assert.ok(!received.includes(secret), `the stranger received ${secret}:\n${received}`);
      }
      assert.equal(stranger!.connections, 0, received);
    });
  } finally {
    await killed.stop("SIGKILL");
    await stranger?.close();
    if (started !== undefined) await stopProcess(started);
    // A serve started in the background that the test did not hear of is stopped too.
    const owner = await Deno.readTextFile(join(home, "owner.json")).then(JSON.parse, () => null);
    if (owner?.pid !== undefined && owner.pid !== killed.pid) await stopProcess(owner.pid);
    await Deno.remove(root, { recursive: true });
  }
});
