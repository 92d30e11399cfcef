import assert from "node:assert/strict";
import { join } from "node:path";
import { BRIDGE_LIMITS } from "../../runtime/mcp_bridge/mod.ts";
import { initializeRequest } from "../internal/mcp_initialize.ts";
import { REPO_ROOT } from "../internal/cli.ts";
import { ServeProcess } from "../internal/serve_process.ts";
import { spawnMcp } from "../internal/mcp_child.ts";

/** How long the answers may take before the test gives up on them. */
const ANSWERS_MS = 25_000;
/** Requests written at once after `initialize`. */
const BURST = 2_000;

/** What a bridge wrote on stdout, each id with every answer it got. */
class Answers {
  #reader: ReadableStreamDefaultReader<string>;
  #rest = "";
  readonly byId = new Map<unknown, Record<string, unknown>[]>();

  constructor(stdout: ReadableStream<Uint8Array>) {
    this.#reader = stdout.pipeThrough(new TextDecoderStream()).getReader();
  }

  /** Reads on until every id in `ids` has an answer, or the time is up. */
  async until(ids: unknown[]): Promise<void> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<null>((resolve) =>
      timer = setTimeout(() => resolve(null), ANSWERS_MS)
    );
    try {
      while (!ids.every((id) => this.byId.has(id))) {
        const read = await Promise.race([this.#reader.read(), late]);
        if (read === null || read.done) return;
        this.#take(read.value);
      }
    } finally {
      clearTimeout(timer);
    }
  }

  #take(value: string): void {
    const lines = (this.#rest + value).split("\n");
    this.#rest = lines.pop()!;
    for (const line of lines.filter(Boolean)) {
      const message = JSON.parse(line);
      if (!Object.hasOwn(message, "id")) continue;
      this.byId.set(message.id, [...this.byId.get(message.id) ?? [], message]);
    }
  }

  async cancel(): Promise<void> {
    await this.#reader.cancel().catch(() => {});
  }
}

/** JSON-RPC lines, one a message, as one write. */
function encode(lines: object[]): Uint8Array {
  return new TextEncoder().encode(lines.map((line) => JSON.stringify(line)).join("\n") + "\n");
}

/** `count` `tools/list` requests, their ids from `first`. */
function toolsLists(first: number, count: number): object[] {
  return Array.from({ length: count }, (_, i) => ({
    jsonrpc: "2.0",
    id: first + i,
    method: "tools/list",
  }));
}

/** Asserts every id in `ids` was answered once, with a list of tools. */
function assertListedOnce(answers: Answers, ids: number[]): void {
  const unlisted = ids.filter((id) => {
    const got = answers.byId.get(id) ?? [];
    return got.length !== 1 || !Array.isArray((got[0].result as { tools?: unknown })?.tools);
  });
  assert.deepEqual(
    unlisted.slice(0, 5).map((id) => [id, answers.byId.get(id)]),
    [],
    `${unlisted.length} of ${ids.length} not answered once with tools`,
  );
}

/** Kills a child left running and lets go of its streams. */
async function reap(child: Deno.ChildProcess | undefined): Promise<void> {
  if (!child) return;
  try {
    child.kill("SIGKILL");
  } catch { /* already gone */ }
  await child.status;
  await child.stdout.cancel().catch(() => {});
  await child.stderr.cancel().catch(() => {});
}

Deno.test("`bridgeStdio()` holds a bounded number of requests before `initialize` is answered", async (t) => {
  const root = await Deno.makeTempDir({ prefix: "sync-mcp-hold-" });
  const home = join(root, "home");
  const project = join(root, "project");
  await Deno.mkdir(project);
  const serve = new ServeProcess(home);
  let child: Deno.ChildProcess | undefined;
  try {
    await serve.url();
    child = spawnMcp(home, project);
    const stderr = new Response(child.stderr).text();
    const stdin = child.stdin.getWriter();
    const answers = new Answers(child.stdout);
    const held = BRIDGE_LIMITS.maxHeld;
    const heldIds = toolsLists(1000, held).map((m) => (m as { id: number }).id);
    const pastIds = toolsLists(1000 + held, 10).map((m) => (m as { id: number }).id);

    await t.step("the requests past the bound are refused at once, in words", async () => {
      await stdin.write(encode([
        ...toolsLists(1000, held + 10),
        { jsonrpc: "2.0", method: "notifications/roots/list_changed" },
      ]));
      await answers.until(pastIds);
      for (const id of pastIds) {
        const [answer, ...more] = answers.byId.get(id) ?? [];
        assert.equal(more.length, 0);
        const error = answer?.error as { code?: number; message?: string } | undefined;
        assert.equal(error?.code, -32000, JSON.stringify(answer));
        assert.match(
          error?.message ?? "",
          new RegExp(`holds at most ${held} requests .*before initialize.*send initialize first`),
        );
      }
      // Nothing held was answered: it waits for initialize.
      assert.deepEqual(
        [...answers.byId.keys()].filter((id) => !pastIds.includes(id as number)),
        [],
      );
    });

    await t.step("the held requests are answered once initialize is", async () => {
      await stdin.write(encode([JSON.parse(initializeRequest("held"))]));
      await answers.until([1, ...heldIds]);
      assert.equal(
        (answers.byId.get(1)?.[0]?.result as { serverInfo?: { name?: string } })?.serverInfo?.name,
        "sync-mcp",
      );
      assertListedOnce(answers, heldIds);
    });

    await stdin.close();
    await answers.cancel();
    const { code } = await child.status;
    child = undefined;
    const said = await stderr;
    assert.equal(code, 0, said);
    assert.match(said, new RegExp(`more than ${held} messages before its initialize;`));
  } finally {
    await reap(child);
    await serve.stop("SIGTERM");
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("`bridgeStdio()` answers a burst of requests in full, a few at a time", async (t) => {
  const root = await Deno.makeTempDir({ prefix: "sync-mcp-burst-" });
  const home = join(root, "home");
  const project = join(root, "project");
  await Deno.mkdir(project);
  const serve = new ServeProcess(home);
  let child: Deno.ChildProcess | undefined;
  const ids = toolsLists(1000, BURST).map((m) => (m as { id: number }).id);
  const burst = encode([
    JSON.parse(initializeRequest("burst")),
    { jsonrpc: "2.0", method: "notifications/initialized" },
    ...toolsLists(1000, BURST),
  ]);
  try {
    await serve.url();

    await t.step(
      `${BURST} requests written at once through sync mcp are each answered once`,
      async () => {
        child = spawnMcp(home, project);
        const stderr = new Response(child.stderr).text();
        const stdin = child.stdin.getWriter();
        const answers = new Answers(child.stdout);
        await stdin.write(burst);
        await answers.until([1, ...ids]);
        assertListedOnce(answers, ids);
        await stdin.close();
        await answers.cancel();
        const { code } = await child.status;
        child = undefined;
        const said = await stderr;
        assert.doesNotMatch(said, /fetch failed|did not answer/);
        assert.equal(code, 0, said);
      },
    );

    await t.step("the bridge has at most 8 messages at the serve at once", async () => {
      child = new Deno.Command(Deno.execPath(), {
        args: [
          "run",
          "--allow-read",
          "--allow-write",
          "--allow-net",
          "--allow-env",
          "tests/internal/counted_bridge.ts",
          project,
        ],
        cwd: REPO_ROOT,
        env: { SYNC_HOME: home, NO_COLOR: "1" },
        stdin: "piped",
        stdout: "piped",
        stderr: "piped",
      }).spawn();
      const stderr = new Response(child.stderr).text();
      const stdin = child.stdin.getWriter();
      const answers = new Answers(child.stdout);
      await stdin.write(burst);
      await answers.until([1, ...ids]);
      assertListedOnce(answers, ids);
      await stdin.close();
      await answers.cancel();
      const { code } = await child.status;
      child = undefined;
      const said = await stderr;
      assert.equal(code, 0, said);
      const counts = JSON.parse(said.trim().split("\n").at(-1)!);
      assert.equal(counts.maxInFlight, BRIDGE_LIMITS.maxInFlight, said);
      // Reading stops once 256 wait; what one read of stdin brought in may still be taken in.
      assert.ok(counts.maxWaiting < BURST - BRIDGE_LIMITS.maxInFlight, said);
    });
  } finally {
    await reap(child);
    await serve.stop("SIGTERM");
    await Deno.remove(root, { recursive: true });
  }
});
