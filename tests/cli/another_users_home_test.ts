import assert from "node:assert/strict";
import { join } from "node:path";
import { runSync } from "../internal/cli.ts";
import { initializeRequest } from "../internal/mcp_initialize.ts";
import { StrangerSocket } from "../internal/stranger_socket.ts";
import { spawnMcp } from "../internal/mcp_child.ts";

/** Another user of the machine (`nobody`), whom only root may give files to. */
const OTHER = 65534;

/** Root, who may give files to another user: the tests of the CLI run as root here. */
const AS_ROOT = Deno.build.os !== "windows" &&
  new TextDecoder().decode((await new Deno.Command("id", { args: ["-u"] }).output()).stdout)
      .trim() === "0";

/** Writes a file as another user's: made here, then given to them. */
async function writeAsOther(path: string, text: string): Promise<void> {
  await Deno.writeTextFile(path, text, { mode: 0o600 });
  await Deno.chown(path, OTHER, OTHER);
}

/** `deno task mcp --project <project>` as an MCP client runs it, one `initialize` on stdin. */
async function runMcp(home: string, project: string) {
  const child = spawnMcp(home, project);
  const stdin = child.stdin.getWriter();
  await stdin.write(new TextEncoder().encode(initializeRequest("another-users-home") + "\n"))
    .catch(() => {});
  await stdin.close().catch(() => {});
  const { code, stdout, stderr } = await child.output();
  const decoder = new TextDecoder();
  return { code, stdout: decoder.decode(stdout), stderr: decoder.decode(stderr) };
}

Deno.test({
  name: "`throughOwner()` and `sync mcp` send nothing to another user's installation",
  ignore: !AS_ROOT,
  fn: async (t) => {
    const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "sync-other-home-" }));
    const home = join(root, "home");
    const project = join(root, "project");
    const token = "cd".repeat(24);
    let lock: Deno.FsFile | undefined;
    let stranger: StrangerSocket | undefined;
    try {
      await Deno.mkdir(project);
      // Another user's installation, as its serve would leave it: its folder
      // closed to others, its token private, its lock held, its note naming its
      // socket, and a listener there.
      await Deno.mkdir(home, { mode: 0o700 });
      await Deno.chown(home, OTHER, OTHER);
      await writeAsOther(join(home, "token"), token + "\n");
      await writeAsOther(join(home, "owner.lock"), "");
      lock = await Deno.open(join(home, "owner.lock"), { read: true, write: true });
      await lock.lock(true);
      stranger = await StrangerSocket.listen(join(home, "owner.sock"), OTHER);
      await writeAsOther(
        join(home, "owner.json"),
        JSON.stringify({
          pid: Deno.pid,
          command: "serve",
          since: new Date().toISOString(),
          socket: join(home, "owner.sock"),
        }),
      );
      const refusal =
        `${home} belongs to another user (uid ${OTHER}); set SYNC_HOME to a folder of your own`;

      await t.step("sync call is refused, saying whose folder it is", async () => {
        const call = await runSync(home, ["call", "hello", "hello.count", "--project", project]);
        assert.notEqual(call.code, 0, call.stdout);
        assert.ok(call.stderr.includes(refusal), call.stderr);
      });

      await t.step("deno task mcp is refused, saying whose folder it is", async () => {
        const mcp = await runMcp(home, project);
        assert.notEqual(mcp.code, 0, mcp.stdout);
        assert.ok(mcp.stderr.includes(refusal), mcp.stderr);
      });

      await t.step("the listener was never connected to, and the folder is unchanged", async () => {
        const received = stranger!.received;
        for (const secret of [token, project]) {
          assert.ok(!received.includes(secret), `the listener received ${secret}:\n${received}`);
        }
        assert.equal(stranger!.connections, 0, received);
        const folder = await Deno.stat(home);
        assert.equal(folder.mode! & 0o777, 0o700);
        assert.equal(folder.uid, OTHER);
      });
    } finally {
      await stranger?.close();
      lock?.close();
      await Deno.remove(root, { recursive: true });
    }
  },
});
