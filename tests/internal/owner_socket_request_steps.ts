/**
 * Test steps for `ownerSocketClient()`'s requests that listen on a Unix
 * socket, which the suite's own permissions do not allow:
 * `tests/projects/owner_socket_request_test.ts` runs this file with
 * `deno test` in a process of its own, allowed to.
 *
 * @module
 */
import assert from "node:assert/strict";
import {
  type OwnerSocketAnswer,
  ownerSocketClient,
  ownerSocketPath,
} from "../../runtime/projects/owner_socket.ts";
import {
  OwnerCutOffError,
  OwnerUnreachedError,
} from "../../runtime/projects/owner_socket_errors.ts";

const URL_OF_MCP = new URL("http://localhost/mcp?project=%2Fsite");

/** Reads an answer's body until `wanted` is in it; answers the text read. */
async function readUntil(answer: OwnerSocketAnswer, wanted: string): Promise<string> {
  const decoder = new TextDecoder();
  let text = "";
  for await (const chunk of answer.body) {
    text += decoder.decode(chunk, { stream: true });
    if (text.includes(wanted)) return text;
  }
  return text + decoder.decode();
}

Deno.test("`ownerSocketClient()` requests over the owner's socket and streams the answers", async (t) => {
  const home = await Deno.makeTempDir({ prefix: "sync-request-" });
  await Deno.chmod(home, 0o700);
  const path = ownerSocketPath(home);
  try {
    await t.step("an event stream's events arrive while the stream stays open", async () => {
      let sendRest: () => void = () => {};
      const rest = new Promise<void>((resolve) => sendRest = resolve);
      const seen: { method: string; target: string; auth: string | null; body: string }[] = [];
      const server = Deno.serve({ path, onListen() {} }, async (request) => {
        const url = new URL(request.url);
        seen.push({
          method: request.method,
          target: url.pathname + url.search,
          auth: request.headers.get("authorization"),
          body: await request.text(),
        });
        const encoder = new TextEncoder();
        return new Response(
          new ReadableStream({
            async start(controller) {
              controller.enqueue(encoder.encode("event: message\ndata: first\n\n"));
              // The rest only once the client has read the first event.
              await rest;
              controller.enqueue(encoder.encode("event: message\ndata: second\n\n"));
              controller.close();
            },
          }),
          { headers: { "content-type": "text/event-stream", "mcp-session-id": "s1" } },
        );
      });
      const client = await ownerSocketClient(home);
      try {
        const answer = await client.request(URL_OF_MCP, {
          method: "POST",
          headers: [["authorization", "Bearer t0k3n"], ["content-type", "application/json"]],
          body: '{"jsonrpc":"2.0","id":1,"method":"initialize"}',
        });
        assert.equal(answer.status, 200);
        assert.equal(answer.header("Content-Type"), "text/event-stream");
        assert.equal(answer.header("mcp-session-id"), "s1");
        const iterator = answer.body[Symbol.asyncIterator]();
        const first = await iterator.next();
        assert.match(new TextDecoder().decode(first.value), /data: first/);
        sendRest();
        let after = "";
        for (let next = await iterator.next(); !next.done; next = await iterator.next()) {
          after += new TextDecoder().decode(next.value);
        }
        assert.match(after, /data: second/);
        assert.deepEqual(seen, [{
          method: "POST",
          target: "/mcp?project=%2Fsite",
          auth: "Bearer t0k3n",
          body: '{"jsonrpc":"2.0","id":1,"method":"initialize"}',
        }]);
      } finally {
        client.close();
        sendRest();
        await server.shutdown();
      }
    });

    await t.step("close() ends an answer still streaming, with an error", async () => {
      let ended: () => void = () => {};
      const gone = new Promise<void>((resolve) => ended = resolve);
      const server = Deno.serve({ path, onListen() {} }, () =>
        new Response(
          new ReadableStream({
            start(controller) {
              controller.enqueue(new TextEncoder().encode(": open\n\n"));
            },
            cancel: () => ended(),
          }),
          { headers: { "content-type": "text/event-stream" } },
        ));
      const client = await ownerSocketClient(home);
      try {
        const answer = await client.request(URL_OF_MCP, { method: "GET", headers: [] });
        const reading = readUntil(answer, "never sent");
        client.close();
        await assert.rejects(reading, TypeError);
        // The serve sees the connection go.
        await gone;
      } finally {
        client.close();
        await server.shutdown();
      }
    });

    await t.step(
      "a request aborted while its answer streams fails with the signal's reason",
      async () => {
        const server = Deno.serve({ path, onListen() {} }, () =>
          new Response(
            new ReadableStream({
              start(controller) {
                controller.enqueue(new TextEncoder().encode(": open\n\n"));
              },
            }),
            { headers: { "content-type": "text/event-stream" } },
          ));
        const client = await ownerSocketClient(home);
        const abort = new AbortController();
        try {
          const answer = await client.request(URL_OF_MCP, {
            method: "GET",
            headers: [],
            signal: abort.signal,
          });
          const reading = readUntil(answer, "never sent");
          abort.abort(new Error("called off"));
          await assert.rejects(reading, /called off/);
        } finally {
          client.close();
          await server.shutdown();
        }
      },
    );

    await t.step("a socket nothing listens on is a TypeError, as fetch's", async () => {
      await Deno.remove(path).catch(() => {});
      const listener = Deno.listen({ transport: "unix", path });
      listener.close();
      const client = await ownerSocketClient(home);
      try {
        await assert.rejects(
          client.request(URL_OF_MCP, { method: "GET", headers: [] }),
          (error: unknown) =>
            error instanceof OwnerUnreachedError && error instanceof TypeError &&
            /\(Connect\)/.test(error.message),
        );
      } finally {
        client.close();
      }
    });

    await t.step(
      "an answer after the request went out fails as cut off, whatever its words say",
      async () => {
        await Deno.remove(path).catch(() => {});
        const listener = Deno.listen({ transport: "unix", path });
        // Words a failure to connect would say, in what the other end writes.
        const answers = [
          "HTTP/1.1 No such file (Connect)\r\n\r\n",
          "HTTP/1.1 200 OK\r\ncontent-length: Connection refused (Connect)\r\n\r\n",
          "",
        ];
        const serving = (async () => {
          for (const answer of answers) {
            const conn = await listener.accept();
            await conn.read(new Uint8Array(64 * 1024));
            if (answer) await conn.write(new TextEncoder().encode(answer));
            conn.close();
          }
        })();
        const client = await ownerSocketClient(home);
        try {
          for (const _ of answers) {
            await assert.rejects(
              client.request(URL_OF_MCP, { method: "POST", headers: [], body: "{}" }),
              (error: unknown) =>
                error instanceof OwnerCutOffError && !(error instanceof OwnerUnreachedError),
            );
          }
        } finally {
          client.close();
          await serving;
          listener.close();
        }
      },
    );
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});
