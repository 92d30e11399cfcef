import assert from "node:assert/strict";
import { netFetch, type NetFetchOptions } from "../../../runtime/host/functions/net_fetch.ts";
import {
  InvalidInputError,
  NetworkError,
  PayloadTooLargeError,
  PermissionDeniedError,
} from "../../../runtime/errors.ts";
import { rejectsWith } from "../../internal/rejects_with.ts";

/** A port nothing listens on: one the system just gave out and took back. */
function closedPort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

Deno.test("`netFetch()` performs a handler's request: declared hosts only, within a deadline and a size cap", async (t) => {
  const seen: string[] = [];
  const slowAnswers: (() => void)[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
    const path = new URL(request.url).pathname;
    seen.push(`${request.method} ${path}`);
    switch (path) {
      case "/hi":
        return new Response("hello", {
          headers: { "content-type": "text/plain; charset=utf-8", "X-Answer": "42" },
        });
      case "/echo":
        return Response.json({
          method: request.method,
          token: request.headers.get("x-token"),
          body: await request.text(),
        });
      case "/text":
        return new Response("grüße, 世界 🌍");
      case "/missing":
        return new Response("no such page", { status: 404 });
      case "/redirect":
        return new Response("moved", { status: 302, headers: { location: "/hi" } });
      case "/exact":
        return new Response("x".repeat(1024));
      case "/big":
        return new Response("y".repeat(2048));
      case "/headers": {
        // Small headers, but more of them than the HTTP client reads.
        const headers = new Headers();
        for (let i = 0; i < 120; i++) headers.set(`x-h${i}`, "v");
        return new Response("ok", { headers });
      }
      case "/endless": {
        // A body without a length that never ends: only the cap stops it.
        const chunk = new Uint8Array(256).fill(0x7a);
        return new Response(new ReadableStream({ pull: (c) => c.enqueue(chunk) }));
      }
      case "/slow":
        // Answers only once the test has seen the caller give up.
        await new Promise<void>((resolve) => slowAnswers.push(resolve));
        return new Response("late");
      default:
        return new Response("?", { status: 500 });
    }
  });
  const port = server.addr.port;
  const base = `http://127.0.0.1:${port}`;
  const options: NetFetchOptions = {
    packageId: "web",
    hosts: [`127.0.0.1:${port}`],
    timeoutMs: 2_000,
    maxBytes: 1024,
    maxHeaderBytes: 4096,
  };

  try {
    await t.step(
      "answers the status, the headers with lower-case names, and the body as text",
      async () => {
        const answer = await netFetch(`${base}/hi`, options);
        assert.equal(answer.status, 200);
        assert.equal(answer.body, "hello");
        assert.equal(answer.headers["content-type"], "text/plain; charset=utf-8");
        assert.equal(answer.headers["x-answer"], "42");
        for (const name of Object.keys(answer.headers)) assert.equal(name, name.toLowerCase());
        assert.deepEqual(Object.keys(answer).sort(), ["body", "headers", "status"]);
      },
    );

    await t.step("decodes the body as UTF-8", async () => {
      assert.equal((await netFetch({ url: `${base}/text` }, options)).body, "grüße, 世界 🌍");
    });

    await t.step("sends the method (in any case), headers and body given", async () => {
      const answer = await netFetch({
        url: `${base}/echo`,
        method: "post",
        headers: { "x-token": "t-1" },
        body: "ping",
      }, options);
      assert.deepEqual(JSON.parse(answer.body), { method: "POST", token: "t-1", body: "ping" });
    });

    await t.step("an error status is an answer, not a failure", async () => {
      const answer = await netFetch(`${base}/missing`, options);
      assert.equal(answer.status, 404);
      assert.equal(answer.body, "no such page");
    });

    await t.step("a redirect is answered as it is, not followed", async () => {
      seen.length = 0;
      const answer = await netFetch(`${base}/redirect`, options);
      assert.equal(answer.status, 302);
      assert.equal(answer.headers.location, "/hi");
      assert.equal(answer.body, "moved");
      assert.deepEqual(seen, ["GET /redirect"]);
    });

    await t.step("a HEAD answer has an empty body", async () => {
      const answer = await netFetch({ url: `${base}/hi`, method: "HEAD" }, options);
      assert.equal(answer.status, 200);
      assert.equal(answer.body, "");
    });

    await t.step(
      "a host the package did not declare is refused before anything is sent",
      async () => {
        seen.length = 0;
        await rejectsWith(
          netFetch(`${base}/hi`, { ...options, hosts: ["example.com"] }),
          PermissionDeniedError,
          `net.fetch() to 127.0.0.1:${port} needs the net:127.0.0.1:${port} permission, ` +
            "which web does not declare",
        );
        await rejectsWith(
          netFetch("https://api.example.com/", { ...options, hosts: ["example.com"] }),
          PermissionDeniedError,
          "net.fetch() to api.example.com needs the net:api.example.com permission, " +
            "which web does not declare",
        );
        assert.deepEqual(seen, []);
      },
    );

    await t.step("a host declared with a port is reached on that port only", async () => {
      await rejectsWith(
        netFetch(`http://127.0.0.1:${port + 1}/`, options),
        PermissionDeniedError,
        `net.fetch() to 127.0.0.1:${port + 1} needs the net:127.0.0.1:${port + 1} permission, ` +
          "which web does not declare",
      );
      await rejectsWith(
        netFetch("http://127.0.0.1/", options),
        PermissionDeniedError,
        "net.fetch() to 127.0.0.1 needs the net:127.0.0.1 permission, which web does not declare",
      );
    });

    await t.step(
      "a host declared without a port is reached on its scheme's port only",
      async () => {
        await rejectsWith(
          netFetch(`${base}/hi`, { ...options, hosts: ["127.0.0.1"] }),
          PermissionDeniedError,
          `net.fetch() to 127.0.0.1:${port} needs the net:127.0.0.1:${port} permission, ` +
            "which web does not declare",
        );
      },
    );

    await t.step("bad arguments are refused with what was expected", async () => {
      for (const request of [42, null, undefined, {}, { url: 7 }, ["http://x/"]]) {
        await rejectsWith(
          netFetch(request, options),
          InvalidInputError,
          "net.fetch() needs { url } or a URL string",
        );
      }
      await rejectsWith(
        netFetch("not a url", options),
        InvalidInputError,
        'net.fetch(): "not a url" is not a URL',
      );
      await rejectsWith(
        netFetch(`ftp://127.0.0.1:${port}/`, options),
        InvalidInputError,
        "net.fetch(): only http and https URLs are fetched, not ftp:",
      );
      await rejectsWith(
        netFetch({ url: `${base}/hi`, method: "trace" }, options),
        InvalidInputError,
        "net.fetch(): method TRACE is not supported",
      );
    });

    await t.step("a header that cannot be sent is refused, and nothing is sent", async () => {
      const before = seen.length;
      await rejectsWith(
        netFetch({ url: `${base}/echo`, headers: { "x-token": "a\r\nX-Evil: 1" } }, options),
        InvalidInputError,
        /net\.fetch\(\): the request's headers cannot be sent: Invalid header value/,
      );
      assert.equal(seen.length, before);
    });

    await t.step("the host is checked before the method", async () => {
      await rejectsWith(
        netFetch({ url: "http://example.com/", method: "TRACE" }, options),
        PermissionDeniedError,
        "net.fetch() to example.com needs the net:example.com permission, which web does not declare",
      );
    });

    await t.step("a body of exactly the cap is answered", async () => {
      assert.equal((await netFetch(`${base}/exact`, options)).body, "x".repeat(1024));
    });

    await t.step("a body past the cap is refused", async () => {
      const refusal =
        `net.fetch() from 127.0.0.1:${port} answered a body of more than 1024 bytes; ` +
        "the limit is 1024";
      await rejectsWith(netFetch(`${base}/big`, options), PayloadTooLargeError, refusal);
      await rejectsWith(netFetch(`${base}/endless`, options), PayloadTooLargeError, refusal);
    });

    await t.step("a host that does not answer in time is given up on", async () => {
      const started = performance.now();
      await rejectsWith(
        netFetch(`${base}/slow`, { ...options, timeoutMs: 150 }),
        NetworkError,
        `could not reach 127.0.0.1:${port} (no answer within 150 ms)`,
      );
      assert.ok(performance.now() - started < 1_500);
      for (const answer of slowAnswers) answer();
    });

    await t.step("a request stops when the handler call it was made for ends", async () => {
      seen.length = 0;
      slowAnswers.length = 0; // the earlier ones were answered
      const ended = new AbortController();
      const pending = netFetch(`${base}/slow`, {
        ...options,
        timeoutMs: 60_000,
        signal: ended.signal,
      });
      // Wait until the server holds the request, then end the call.
      while (!seen.includes("GET /slow") || slowAnswers.length === 0) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      ended.abort();
      await rejectsWith(
        pending,
        NetworkError,
        `stopped fetching from 127.0.0.1:${port}: the handler call it was made for ended`,
      );
      for (const answer of slowAnswers.splice(0)) answer();
    });

    await t.step("a host that refuses the connection fails, saying so in words", async () => {
      const closed = closedPort();
      await rejectsWith(
        netFetch(`http://127.0.0.1:${closed}/`, { ...options, hosts: [`127.0.0.1:${closed}`] }),
        NetworkError,
        `could not reach 127.0.0.1:${closed} (it refused the connection: is the server running?)`,
      );
    });

    await t.step("a host name that does not exist fails as no such host", async () => {
      await rejectsWith(
        netFetch("https://tracker.example.com/", {
          ...options,
          hosts: ["tracker.example.com"],
          resolve: () => Promise.reject(new Error("getaddrinfo ENOTFOUND tracker.example.com")),
        }),
        NetworkError,
        "could not reach tracker.example.com (no such host)",
      );
    });

    await t.step(
      "an answer with more headers than are read is too large, not a failure",
      async () => {
        await rejectsWith(
          netFetch(`${base}/headers`, options),
          PayloadTooLargeError,
          new RegExp(
            `^net\\.fetch\\(\\) from 127\\.0\\.0\\.1:${port} answered more headers than are read`,
          ),
        );
      },
    );
  } finally {
    for (const answer of slowAnswers) answer();
    await server.shutdown();
  }
});
