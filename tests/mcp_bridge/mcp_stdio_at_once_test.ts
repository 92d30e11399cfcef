import assert from "node:assert/strict";
import { join } from "node:path";
import { initializeRequest } from "../internal/mcp_initialize.ts";
import { ServeProcess } from "../internal/serve_process.ts";
import { spawnMcp } from "../internal/mcp_child.ts";

/** How long the answers may take before the test gives up on them. */
const ANSWERS_MS = 60_000;

/** Reads answers from `stdout` until every id in `ids` has one; answers them by id. */
async function answersTo(
  stdout: ReadableStreamDefaultReader<string>,
  ids: unknown[],
): Promise<Map<unknown, Record<string, unknown>>> {
  const answers = new Map<unknown, Record<string, unknown>>();
  let rest = "";
  const until = Date.now() + ANSWERS_MS;
  while (!ids.every((id) => answers.has(id)) && Date.now() < until) {
    const { value, done } = await stdout.read();
    if (done) break;
    const lines = (rest + value).split("\n");
    rest = lines.pop()!;
    for (const line of lines.filter(Boolean)) {
      const message = JSON.parse(line);
      if ("id" in message) answers.set(message.id, message);
    }
  }
  return answers;
}

Deno.test("`bridgeStdio()` answers ping at once and holds requests until `initialize` is answered", async (t) => {
  const root = await Deno.makeTempDir({ prefix: "sync-mcp-ping-" });
  const home = join(root, "home");
  const project = join(root, "project");
  await Deno.mkdir(project);
  const serve = new ServeProcess(home);
  let child: Deno.ChildProcess | undefined;
  try {
    await serve.url();
    child = spawnMcp(home, project);
    const stdin = child.stdin.getWriter();
    const stdout = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
    const encode = (lines: object[]) =>
      new TextEncoder().encode(lines.map((line) => JSON.stringify(line)).join("\n") + "\n");

    await t.step("a ping before anything else is answered", async () => {
      await stdin.write(encode([{ jsonrpc: "2.0", id: "early", method: "ping" }]));
      const answers = await answersTo(stdout, ["early"]);
      assert.deepEqual(answers.get("early")?.result, {}, JSON.stringify(answers.get("early")));
    });

    await t.step(
      "a request before initialize, then initialize, ping and tools/list, are all answered",
      async () => {
        await stdin.write(encode([
          { jsonrpc: "2.0", id: 10, method: "tools/list" },
          JSON.parse(initializeRequest("ping-first")),
          { jsonrpc: "2.0", id: 2, method: "ping" },
          { jsonrpc: "2.0", id: 3, method: "tools/list" },
          { jsonrpc: "2.0", method: "notifications/initialized" },
          { jsonrpc: "2.0", id: 4, method: "ping" },
        ]));
        const answers = await answersTo(stdout, [10, 1, 2, 3, 4]);
        for (const [id, answer] of answers) {
          assert.equal(answer.error, undefined, `${id}: ${JSON.stringify(answer)}`);
        }
        assert.equal(
          (answers.get(1)?.result as { serverInfo?: { name?: string } })?.serverInfo?.name,
          "sync-mcp",
        );
        assert.deepEqual(answers.get(2)?.result, {});
        assert.deepEqual(answers.get(4)?.result, {});
        for (const id of [10, 3]) {
          assert.ok(Array.isArray((answers.get(id)?.result as { tools?: unknown })?.tools));
        }
      },
    );
    await stdin.close();
    await stdout.cancel();
    const { code } = await child.status;
    child = undefined;
    assert.equal(code, 0);

    await t.step(
      "a request held for an initialize that never comes is refused at the end",
      async () => {
        child = spawnMcp(home, project);
        const writer = child.stdin.getWriter();
        await writer.write(encode([{ jsonrpc: "2.0", id: 7, method: "tools/list" }]));
        await writer.close();
        const [out, err, status] = await Promise.all([
          new Response(child.stdout).text(),
          new Response(child.stderr).text(),
          child.status,
        ]);
        child = undefined;
        const [answer] = out.split("\n").filter(Boolean).map((line) => JSON.parse(line));
        assert.equal(answer?.id, 7, `stdout: ${out}\nstderr: ${err}`);
        assert.match(answer.error?.message, /without sending initialize/);
        assert.equal(status.code, 0, err);
      },
    );
  } finally {
    if (child) {
      try {
        child.kill("SIGKILL");
      } catch { /* already gone */ }
      await child.status;
      await child.stdout.cancel().catch(() => {});
      await child.stderr.cancel().catch(() => {});
    }
    await serve.stop("SIGTERM");
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("`bridgeStdio()` holds what follows `initialize` until the owner has answered it", async (t) => {
  const root = await Deno.makeTempDir({ prefix: "sync-mcp-at-once-" });
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
    const stdout = child.stdout.pipeThrough(new TextDecoderStream()).getReader();

    await t.step(
      "initialize, initialized and tools/list written at once are all answered",
      async () => {
        // One write, as a client that does not wait for the answer to initialize sends them.
        await stdin.write(new TextEncoder().encode(
          [
            initializeRequest("at-once"),
            JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
            JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }),
            JSON.stringify({ jsonrpc: "2.0", id: 3, method: "ping" }),
          ].join("\n") + "\n",
        ));
        const answers = new Map<unknown, Record<string, unknown>>();
        let rest = "";
        const until = Date.now() + ANSWERS_MS;
        while (!(answers.has(1) && answers.has(2) && answers.has(3)) && Date.now() < until) {
          const { value, done } = await stdout.read();
          if (done) break;
          const lines = (rest + value).split("\n");
          rest = lines.pop()!;
          for (const line of lines.filter(Boolean)) {
            const message = JSON.parse(line);
            if ("id" in message) answers.set(message.id, message);
          }
        }
        assert.equal(
          (answers.get(1)?.result as { serverInfo?: { name?: string } })?.serverInfo?.name,
          "sync-mcp",
          JSON.stringify(answers.get(1)),
        );
        assert.ok(
          Array.isArray((answers.get(2)?.result as { tools?: unknown })?.tools),
          JSON.stringify(answers.get(2)),
        );
        assert.deepEqual(answers.get(3)?.result, {}, JSON.stringify(answers.get(3)));
      },
    );

    await stdin.close();
    await stdout.cancel();
    const { code } = await child.status;
    child = undefined;
    assert.equal(code, 0, await stderr);

    await t.step(
      "requests written and stdin closed at once are all answered before it ends",
      async () => {
        // `printf … | deno task mcp`: the client has nothing more to say, and waits for answers.
        child = spawnMcp(home, project);
        const writer = child.stdin.getWriter();
        await writer.write(new TextEncoder().encode(
          [
            initializeRequest("and-close"),
            JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
            JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }),
          ].join("\n") + "\n",
        ));
        await writer.close();
        const [out, err, status] = await Promise.all([
          new Response(child.stdout).text(),
          new Response(child.stderr).text(),
          child.status,
        ]);
        child = undefined;
        const ids = out.split("\n").filter(Boolean).map((line) => JSON.parse(line).id);
        assert.deepEqual(ids, [1, 2], `stdout: ${out}\nstderr: ${err}`);
        assert.equal(status.code, 0, err);
      },
    );
  } finally {
    if (child) {
      try {
        child.kill("SIGKILL");
      } catch { /* already gone */ }
      await child.status;
      await child.stdout.cancel().catch(() => {});
      await child.stderr.cancel().catch(() => {});
    }
    await serve.stop("SIGTERM");
    await Deno.remove(root, { recursive: true });
  }
});
