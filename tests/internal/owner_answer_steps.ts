/**
 * Test steps for how `postToOwner()` and `sendToServe()` read what answers on
 * the owner's socket when it is not what a serve sends: a fake owner on a
 * Unix socket writes the bytes. The suite's own permissions do not allow
 * listening there: `tests/cli/owner_answer_test.ts` runs this file with
 * `deno test` in a process of its own, allowed to.
 *
 * @module
 */
import assert from "node:assert/strict";
import { sendToServe } from "../../runtime/cli/serve_client.ts";
import { ConflictError, OwnerGoneError } from "../../runtime/errors.ts";
import { ownerSocketPath } from "../../runtime/projects/owner_socket.ts";
import {
  OwnerAnswerError,
  type OwnerPost,
  postToOwner,
} from "../../runtime/projects/post_to_owner.ts";

const encoder = new TextEncoder();

/**
 * A fake owner on the socket at `path`: it takes one connection, reads the
 * request, and hands the connection to `answer`; it closes the connection
 * after, unless `answer` keeps it open until `released`.
 */
function fakeOwner(path: string, answer: (conn: Deno.Conn) => Promise<void>) {
  const listener = Deno.listen({ transport: "unix", path });
  const served = (async () => {
    const conn = await listener.accept();
    try {
      await conn.read(new Uint8Array(64 * 1024));
      await answer(conn);
    } catch {
      /* the client went away */
    } finally {
      try {
        conn.close();
      } catch { /* closed by the client */ }
    }
  })();
  return {
    async [Symbol.asyncDispose]() {
      await served;
      listener.close();
    },
  };
}

/** Writes text, or bytes, to the connection. */
async function write(conn: Deno.Conn, data: string | Uint8Array): Promise<void> {
  const bytes = typeof data === "string" ? encoder.encode(data) : data;
  for (let at = 0; at < bytes.byteLength;) at += await conn.write(bytes.subarray(at));
}

/** A head of `status` with a chunked body, then `lines` each in a chunk, then the end. */
function chunked(status: string, lines: string[]): string {
  const chunks = lines.map((line) =>
    `${encoder.encode(line).byteLength.toString(16)}\r\n${line}\r\n`
  );
  return `${status}\r\ntransfer-encoding: chunked\r\n\r\n${chunks.join("")}0\r\n\r\n`;
}

Deno.test("`postToOwner()` reads the owner's answer within bounds", async (t) => {
  const home = await Deno.makeTempDir({ prefix: "sync-owner-answer-" });
  await Deno.chmod(home, 0o700);
  const path = ownerSocketPath(home);
  const post: OwnerPost = { path: "/api/owner/commands", token: "t", body: "{}" };
  try {
    await t.step("an owner that sends no head in time is told, in words", async () => {
      let release = () => {};
      const released = new Promise<void>((resolve) => release = resolve);
      await using _owner = fakeOwner(path, () => released);
      // Without a deadline the post would wait for ever: the step fails after 10 s instead.
      let guard: ReturnType<typeof setTimeout> | undefined;
      const hung = new Promise<never>((_, reject) => {
        guard = setTimeout(() => reject(new Error("the post waits with no deadline")), 10_000);
      });
      try {
        await assert.rejects(
          Promise.race([postToOwner(home, { ...post, headTimeoutMs: 100 }), hung]),
          (error) =>
            error instanceof OwnerAnswerError && error.silent &&
            /no answer within 0\.1 s/.test(error.message),
        );
      } finally {
        clearTimeout(guard);
        release();
      }
    });

    await t.step("headers past 64 KiB are refused before the connection ends", async () => {
      await using _owner = fakeOwner(path, async (conn) => {
        await write(conn, "HTTP/1.1 200 OK\r\n");
        for (let i = 0; i < 64; i++) await write(conn, `x-filler: ${"a".repeat(1024)}\r\n`);
      });
      await assert.rejects(
        postToOwner(home, post),
        (error) => error instanceof OwnerAnswerError && /past 65536 bytes/.test(error.message),
      );
    });

    await t.step("more than a few 1xx heads before the answer are refused", async () => {
      await using _owner = fakeOwner(path, async (conn) => {
        for (let i = 0; i < 20; i++) await write(conn, "HTTP/1.1 100 Continue\r\n\r\n");
      });
      await assert.rejects(
        postToOwner(home, post),
        (error) => error instanceof OwnerAnswerError && /1xx heads/.test(error.message),
      );
    });

    await t.step("two content-lengths that differ are refused", async () => {
      await using _owner = fakeOwner(path, async (conn) => {
        await write(conn, "HTTP/1.1 200 OK\r\ncontent-length: 3\r\ncontent-length: 5\r\n\r\nhello");
      });
      await assert.rejects(
        postToOwner(home, post),
        (error) => error instanceof OwnerAnswerError && /given twice/.test(error.message),
      );
    });

    await t.step("a transfer-encoding that only has chunked in a word is not chunked", async () => {
      const raw = "5\r\nhello\r\n0\r\n\r\n";
      await using _owner = fakeOwner(path, async (conn) => {
        await write(conn, `HTTP/1.1 200 OK\r\ntransfer-encoding: not-chunked\r\n\r\n${raw}`);
      });
      const answer = await postToOwner(home, post);
      assert.ok(answer);
      try {
        let text = "";
        for await (const bytes of answer.body) text += new TextDecoder().decode(bytes);
        assert.equal(text, raw);
      } finally {
        answer.close();
      }
    });

    await t.step("a chunk longer than its size is refused", async () => {
      await using _owner = fakeOwner(path, async (conn) => {
        await write(
          conn,
          "HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n5\r\nhelloXY\r\n0\r\n\r\n",
        );
      });
      const answer = await postToOwner(home, post);
      assert.ok(answer);
      try {
        await assert.rejects(
          (async () => {
            for await (const _ of answer.body) { /* read on */ }
          })(),
          (error) =>
            error instanceof OwnerAnswerError && /longer than its size/.test(error.message),
        );
      } finally {
        answer.close();
      }
    });

    await t.step("a chunk size past 16 MiB is refused", async () => {
      await using _owner = fakeOwner(path, async (conn) => {
        await write(conn, "HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\nfffffffffff\r\nab");
      });
      const answer = await postToOwner(home, post);
      assert.ok(answer);
      try {
        await assert.rejects(
          (async () => {
            for await (const _ of answer.body) { /* read on */ }
          })(),
          (error) => error instanceof OwnerAnswerError && /chunk size/.test(error.message),
        );
      } finally {
        answer.close();
      }
    });

    await t.step("a body of a huge length is given as it comes, not gathered", async () => {
      await using _owner = fakeOwner(path, async (conn) => {
        await write(
          conn,
          `HTTP/1.1 200 OK\r\ncontent-length: 99999999999\r\n\r\n${"b".repeat(100)}`,
        );
      });
      const answer = await postToOwner(home, post);
      assert.ok(answer);
      try {
        const body = answer.body[Symbol.asyncIterator]();
        const first = await body.next();
        assert.equal(new TextDecoder().decode(first.value), "b".repeat(100));
        await assert.rejects(body.next(), /the connection ended before the answer did/);
      } finally {
        answer.close();
      }
    });

    await t.step("a status line that is not one is refused", async () => {
      await using _owner = fakeOwner(path, (conn) => write(conn, "HTTP/1.1 2000 OK\r\n\r\n"));
      await assert.rejects(
        postToOwner(home, post),
        (error) => error instanceof OwnerAnswerError && /not HTTP/.test(error.message),
      );
    });
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("`sendToServe()` takes only a command's output from the owner", async (t) => {
  const home = await Deno.makeTempDir({ prefix: "sync-serve-client-" });
  await Deno.chmod(home, 0o700);
  const path = ownerSocketPath(home);
  const owner = { pid: 4242, command: "serve", since: new Date(0).toISOString() };
  const request = { args: ["list"], cwd: "/" };
  /** What `sendToServe()` makes of `bytes` answered on the socket: its exit code, or its error. */
  async function outcome(bytes: string | Uint8Array): Promise<number | Error> {
    await using _owner = fakeOwner(path, (conn) => write(conn, bytes));
    const io = { out: () => {}, err: () => {} };
    return await sendToServe(home, owner, "t", request, io).then(
      (code) => code ?? new Error("nothing answered"),
      (error) => error,
    );
  }
  /** Asserts `got` is an error of `type` whose words match `words`. */
  function assertError(
    got: number | Error,
    type: new (message: string) => Error,
    words: RegExp,
  ): void {
    assert.ok(got instanceof type, `${got}`);
    assert.match(got.message, words);
  }
  const notOutput = /\(pid 4242\) answered something that is not a command's output/;
  try {
    await t.step("an exit that is not an integer from 0 to 255 is no output", async () => {
      for (const exit of ['"7x"', "4096", "-1", "1.5", "null"]) {
        assertError(
          await outcome(chunked("HTTP/1.1 200 OK", [`{"exit":${exit}}\n`])),
          ConflictError,
          notOutput,
        );
      }
      assert.equal(await outcome(chunked("HTTP/1.1 200 OK", ['{"exit":7}\n'])), 7);
    });

    await t.step("a line that is not JSON, or null, is no output", async () => {
      for (const line of ["not json\n", "null\n", '{"out":1}\n', "[]\n"]) {
        assertError(await outcome(chunked("HTTP/1.1 200 OK", [line])), ConflictError, notOutput);
      }
    });

    await t.step("a status line that is none is no output", async () => {
      for (const head of ["HTTP/1.1 2000 OK\r\n\r\n", "\r\n\r\n", "garbage\r\n\r\n"]) {
        assertError(await outcome(head), ConflictError, notOutput);
      }
    });

    await t.step("a 100 Continue head is skipped", async () => {
      const answer = "HTTP/1.1 100 Continue\r\n\r\n" +
        chunked("HTTP/1.1 200 OK", ['{"out":"hi"}\n', '{"exit":3}\n']);
      assert.equal(await outcome(answer), 3);
    });

    await t.step("a line past 16 MiB is no output", async () => {
      const line = `{"out":"${"a".repeat(17 * 1024 * 1024)}`;
      assertError(
        await outcome(`HTTP/1.1 200 OK\r\nconnection: close\r\n\r\n${line}`),
        ConflictError,
        /a line longer than 16 MiB/,
      );
    });

    await t.step("a refusal quotes the start of its body, however long it says it is", async () => {
      const got = await outcome(
        `HTTP/1.1 500 Oops\r\ncontent-length: 99999999999\r\n\r\n${"z".repeat(1000)}`,
      );
      assertError(
        got,
        ConflictError,
        new RegExp(`refused the command \\(500: ${"z".repeat(200)}\\)`),
      );
    });

    await t.step("an answer that ends early is still the serve stopping", async () => {
      assertError(
        await outcome(chunked("HTTP/1.1 200 OK", ['{"out":"hi"}\n']).replace("0\r\n\r\n", "")),
        OwnerGoneError,
        /stopped before the command finished/,
      );
    });
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});
