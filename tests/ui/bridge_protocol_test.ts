import assert from "node:assert/strict";
import {
  MAX_MESSAGE_CHARS,
  readConnectMessage,
  readScreenMessage,
} from "../../ui/screens/bridge_protocol.ts";

Deno.test("`readScreenMessage()` takes well-formed requests and refuses the rest with a reason", async (t) => {
  await t.step("a request of each method, with its parameters", () => {
    const requests = [
      { method: "handlers.call", params: { name: "board.add", payload: { n: 1 } } },
      { method: "memory.list", params: { query: { kind: "board.item" } } },
      { method: "memory.list", params: {} },
      { method: "memory.record", params: { key: "board.item/1" } },
      { method: "memory.content", params: { key: "board.item/1" } },
      { method: "net.fetch", params: { request: "https://example.com/" } },
      { method: "host.spawn", params: { id: "cat", args: ["-u"], env: { A: "1", B: null } } },
      { method: "process.write", params: { process: 1, text: "hi" } },
      { method: "process.kill", params: { process: 1 } },
    ];
    for (const [i, request] of requests.entries()) {
      const read = readScreenMessage({ type: "request", id: i + 1, ...request });
      assert.ok(read.ok, `${request.method}: ${!read.ok && read.reason}`);
    }
    assert.deepEqual(readScreenMessage({ type: "activated" }), {
      ok: true,
      message: { type: "activated" },
    });
  });

  await t.step("what it refuses, with the id when the message had one", () => {
    const refusals: [unknown, number | null, RegExp][] = [
      ["text", null, /must be an object, got string/],
      [null, null, /got null/],
      [[1, 2], null, /got a list/],
      [{ type: "request", method: "memory.list" }, null, /needs "id"/],
      [{ type: "request", id: -1, method: "memory.list" }, null, /needs "id"/],
      [{ type: "request", id: 3, method: "files.read" }, 3, /unknown method "files\.read"/],
      [{ type: "hello", id: 4 }, 4, /unknown message type "hello"/],
      [{ type: "request", id: 5, method: "handlers.call", params: { name: 5 } }, 5, /"name"/],
      [{ type: "request", id: 6, method: "memory.record", params: {} }, 6, /"key"/],
      [
        { type: "request", id: 7, method: "host.spawn", params: { id: "x", args: [1] } },
        7,
        /"args"/,
      ],
      [
        { type: "request", id: 8, method: "host.spawn", params: { id: "x", env: { A: 1 } } },
        8,
        /"env"/,
      ],
      [{ type: "request", id: 9, method: "process.end", params: { process: "1" } }, 9, /"process"/],
      [{ type: "request", id: 10, method: "memory.list", params: [] }, 10, /"params"/],
      [
        {
          type: "request",
          id: 11,
          method: "handlers.call",
          params: { name: "a", payload: new Map() },
        },
        11,
        /plain JSON/,
      ],
      [
        { type: "request", id: 12, method: "handlers.call", params: { name: "a", payload: NaN } },
        12,
        /plain JSON/,
      ],
      [
        {
          type: "request",
          id: 13,
          method: "handlers.call",
          params: { name: "a", payload: "x".repeat(MAX_MESSAGE_CHARS) },
        },
        13,
        /at most/,
      ],
    ];
    for (const [data, id, reason] of refusals) {
      const read = readScreenMessage(data);
      assert.equal(read.ok, false, JSON.stringify(data)?.slice(0, 80));
      if (!read.ok) {
        assert.equal(read.id, id);
        assert.match(read.reason, reason);
      }
    }
    const cycle: Record<string, unknown> = { type: "request", id: 14, method: "memory.list" };
    cycle.params = { query: cycle };
    const read = readScreenMessage(cycle);
    assert.ok(!read.ok && read.id === 14 && /plain JSON/.test(read.reason));
  });

  await t.step("a getter that throws is refused, not thrown", () => {
    const hostile = {
      type: "request",
      id: 15,
      get method(): string {
        throw new Error("boom");
      },
    };
    const read = readScreenMessage(hostile);
    assert.equal(read.ok, false);
  });
});

Deno.test("`readConnectMessage()` takes only Sync's connect message of this version", () => {
  const connect = {
    sync: "screen-connect",
    version: 1,
    apiVersion: "1.1.0",
    screen: { id: "board", name: "Board", project: "/p" },
  };
  assert.deepEqual(readConnectMessage(connect), connect);
  assert.equal(readConnectMessage({ ...connect, version: 2 }), null);
  assert.equal(readConnectMessage({ ...connect, sync: "other" }), null);
  assert.equal(readConnectMessage({ ...connect, screen: { id: "board" } }), null);
});
