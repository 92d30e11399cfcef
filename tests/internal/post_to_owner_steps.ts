/**
 * Test steps for `postToOwner()` that listen on a Unix socket, which the
 * suite's own permissions do not allow: `tests/projects/post_to_owner_test.ts`
 * runs this file with `deno test` in a process of its own, allowed to.
 *
 * @module
 */
import assert from "node:assert/strict";
import { ownerSocketPath } from "../../runtime/projects/owner_socket.ts";
import { type OwnerAnswer, postToOwner } from "../../runtime/projects/post_to_owner.ts";

/** The body of an answer, as text. */
async function textOf(answer: OwnerAnswer): Promise<string> {
  const decoder = new TextDecoder();
  let text = "";
  for await (const chunk of answer.body) text += decoder.decode(chunk, { stream: true });
  return text + decoder.decode();
}

/** A request as the serve saw it. */
interface Seen {
  method: string;
  path: string;
  authorization: string | null;
  body: string;
}

Deno.test("`postToOwner()` posts to the serve over its socket and reads its answer", async (t) => {
  const home = await Deno.makeTempDir({ prefix: "sync-post-" });
  await Deno.chmod(home, 0o700);
  const path = ownerSocketPath(home);
  const post = { path: "/api/owner/commands", token: "t0k3n", body: '{"args":["list"]}' };
  try {
    await t.step("a streamed answer arrives whole, as it was sent", async () => {
      const seen: Seen[] = [];
      // Lines cut anywhere, a character of several bytes among them, as a serve streams them.
      const parts = ['{"out":"a', 'é"}\n{"err":"b"}\n', '{"exit":0}\n'];
      const server = Deno.serve({ path, onListen() {} }, async (request) => {
        seen.push({
          method: request.method,
          path: new URL(request.url).pathname,
          authorization: request.headers.get("authorization"),
          body: await request.text(),
        });
        const bytes = parts.map((part) => new TextEncoder().encode(part));
        // Split the "é" across two chunks too.
        const first = bytes[0];
        const chunks = [
          first.subarray(0, first.length - 1),
          first.subarray(first.length - 1),
          ...bytes.slice(1),
        ];
        return new Response(
          new ReadableStream({
            start(controller) {
              for (const chunk of chunks) controller.enqueue(chunk);
              controller.close();
            },
          }),
          { headers: { "content-type": "application/x-ndjson" } },
        );
      });
      try {
        const answer = await postToOwner(home, post);
        assert.ok(answer);
        try {
          assert.equal(answer.status, 200);
          assert.equal(await textOf(answer), parts.join(""));
        } finally {
          answer.close();
        }
        assert.deepEqual(seen, [{
          method: "POST",
          path: "/api/owner/commands",
          authorization: "Bearer t0k3n",
          body: post.body,
        }]);
      } finally {
        await server.shutdown();
      }
    });

    await t.step("a refusal's status and words", async () => {
      const server = Deno.serve({ path, onListen() {} }, async (request) => {
        await request.body?.cancel();
        return new Response("not this token", { status: 401 });
      });
      try {
        const answer = await postToOwner(home, post);
        assert.ok(answer);
        try {
          assert.equal(answer.status, 401);
          assert.equal(await textOf(answer), "not this token");
        } finally {
          answer.close();
        }
      } finally {
        await server.shutdown();
      }
    });

    await t.step("an answer cut short throws as it is read", async () => {
      const listener = Deno.listen({ transport: "unix", path });
      const served = (async () => {
        const conn = await listener.accept();
        await conn.read(new Uint8Array(4096));
        await conn.write(
          new TextEncoder().encode(
            "HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n5\r\nhello\r\n10\r\nnot all",
          ),
        );
        conn.close();
      })();
      try {
        const answer = await postToOwner(home, post);
        assert.ok(answer);
        try {
          await assert.rejects(textOf(answer), /the connection ended before the answer did/);
        } finally {
          answer.close();
        }
      } finally {
        await served;
        listener.close();
      }
    });

    await t.step("null when nothing listens on the socket: nothing was sent", async () => {
      await Deno.remove(path).catch(() => {});
      assert.equal(await postToOwner(home, post), null);
    });
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});
