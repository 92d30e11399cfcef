// What a page served by anything else on this machine, or a process that is
// not the app, can do to the web app with or without the installation's
// token: each step is one attack, sent in-process with `app.request`.
import assert from "node:assert/strict";
import { join } from "node:path";
import { createApp } from "../../runtime/web/app.ts";
import { readProject } from "../../runtime/projects/mod.ts";
import { testHost } from "../internal/packages.ts";

const PORT = 4321;
const TOKEN = "t".repeat(48);
const OWN = `http://127.0.0.1:${PORT}`;
const COOKIE = `sync_token_${PORT}=${TOKEN}`;
const url = (path: string) => `${OWN}${path}`;

/** A folder this user cannot write by its mode, or null when modes do not bind this user (root). */
async function readOnlyFolder(root: string): Promise<string | null> {
  const dir = join(root, "read-only");
  await Deno.mkdir(dir);
  await Deno.chmod(dir, 0o555);
  try {
    await Deno.remove(await Deno.makeTempFile({ dir }));
  } catch {
    return dir;
  }
  return null;
}

Deno.test("the web app admits only its own page and the token's holder", async (t) => {
  const env = await testHost();
  const userHome = await Deno.makeTempDir({ prefix: "sync-user-home-" });
  // The person's home folder is `HOME`, read where every project is resolved.
  const realHome = Deno.env.get("HOME");
  Deno.env.set("HOME", userHome);
  const app = createApp(env.host, { token: TOKEN, port: PORT });
  const open = (path: string, headers: Record<string, string>, body?: BodyInit) =>
    app.request(url("/api/projects/open"), {
      method: "POST",
      headers,
      body: body ?? JSON.stringify({ path }),
    });
  try {
    await t.step("a page on another loopback origin cannot post with the cookie", async () => {
      const origins = [
        "http://localhost:3000",
        "http://127.0.0.1:8080",
        "https://localhost",
        `https://127.0.0.1:${PORT}`,
        `http://localhost:${PORT}`,
        `http://127.0.0.1:${PORT}.evil.example`,
        "null",
      ];
      const bodies: [string, string][] = [
        ["application/json", JSON.stringify({ path: env.project })],
        ["text/plain", JSON.stringify({ path: env.project })],
        ["application/x-www-form-urlencoded", `path=${encodeURIComponent(env.project)}`],
      ];
      for (const origin of origins) {
        for (const [type, body] of bodies) {
          const response = await open(env.project, {
            cookie: COOKIE,
            origin,
            "content-type": type,
          }, body);
          assert.equal(response.status, 403, `${origin} with ${type}`);
          assert.match((await response.json()).error, /may not change anything here/);
        }
      }
      assert.equal(await readProject(env.kv, env.project), null, "nothing was opened");
    });

    await t.step("a state-changing request that says it is cross-site is refused", async () => {
      const response = await open(env.project, {
        authorization: `Bearer ${TOKEN}`,
        "sec-fetch-site": "same-site",
        "content-type": "application/json",
      });
      assert.equal(response.status, 403);
    });

    await t.step("a JSON endpoint refuses a body that is not application/json", async () => {
      for (
        const type of ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data"]
      ) {
        const response = await open(env.project, {
          cookie: COOKIE,
          origin: OWN,
          "content-type": type,
        });
        assert.equal(response.status, 415, type);
        assert.match((await response.json()).error, /Content-Type.*application\/json/);
      }
      const none = await app.request(url("/api/projects/open"), {
        method: "POST",
        headers: { cookie: COOKIE, origin: OWN },
        body: new Blob([JSON.stringify({ path: env.project })]),
      });
      assert.equal(none.status, 415);
      assert.equal(await readProject(env.kv, env.project), null, "nothing was opened");
    });

    await t.step(
      "a state-changing request with no Origin needs the Bearer token, not the cookie",
      async () => {
        const cookieOnly = await open(env.project, {
          cookie: COOKIE,
          "content-type": "application/json",
        });
        assert.equal(cookieOnly.status, 401);
        assert.match((await cookieOnly.json()).error, /Authorization: Bearer/);
        const queryOnly = await app.request(url(`/api/projects/open?token=${TOKEN}`), {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ path: env.project }),
        });
        assert.equal(queryOnly.status, 401);
        assert.equal(await readProject(env.kv, env.project), null, "nothing was opened");
        const bearer = await open(env.project, {
          authorization: `Bearer ${TOKEN}`,
          "content-type": "application/json",
        });
        assert.equal(bearer.status, 200);
      },
    );

    await t.step(
      "tokenGuard() takes the cookie from the app's own page that a browser marks same-origin with no Origin",
      async () => {
        const otherSite = await open(env.project, {
          cookie: COOKIE,
          "content-type": "application/json",
          "sec-fetch-site": "same-site",
        });
        assert.equal(otherSite.status, 403);
        const noCookie = await open(env.project, {
          "content-type": "application/json",
          "sec-fetch-site": "same-origin",
        });
        assert.equal(noCookie.status, 401);
        const ownPage = await open(env.project, {
          cookie: COOKIE,
          "content-type": "application/json",
          "sec-fetch-site": "same-origin",
        });
        assert.equal(ownPage.status, 200);
      },
    );

    await t.step("a wrong Bearer token is refused even beside the right cookie", async () => {
      const response = await app.request(url("/api/health"), {
        headers: { authorization: `Bearer ${"u".repeat(48)}`, cookie: COOKIE },
      });
      assert.equal(response.status, 401);
    });

    await t.step(
      "the cookie is named for the app's port, and another port's is not taken",
      async () => {
        const first = await app.request(url(`/api/health?token=${TOKEN}`));
        assert.match(first.headers.get("set-cookie") ?? "", new RegExp(`^sync_token_${PORT}=`));
        const other = await app.request(url("/api/health"), {
          headers: { cookie: `sync_token_3000=${TOKEN}; sync_token=${TOKEN}` },
        });
        assert.equal(other.status, 401);
      },
    );

    await t.step("a Host with another port is refused", async () => {
      const response = await app.request(url(`/api/health?token=${TOKEN}`), {
        headers: { host: "127.0.0.1:8080" },
      });
      assert.equal(response.status, 403);
    });

    await t.step("a body over the limit is refused with 413 before it is read whole", async () => {
      const declared = await app.request(url("/api/projects/open"), {
        method: "POST",
        headers: {
          cookie: COOKIE,
          origin: OWN,
          "content-type": "application/json",
          "content-length": String(300 * 1024 * 1024),
        },
        body: "{}",
      });
      assert.equal(declared.status, 413);
      assert.match((await declared.json()).error, /larger than .* bytes/);
      // A chunked body says no length: it is counted as it arrives.
      let pulled = 0;
      const chunk = new Uint8Array(1024 * 1024).fill(0x20);
      const stream = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (pulled >= 300 * chunk.length) return controller.close();
          pulled += chunk.length;
          controller.enqueue(chunk);
        },
      });
      const chunked = await app.request(url("/api/projects/open"), {
        method: "POST",
        headers: { cookie: COOKIE, origin: OWN, "content-type": "application/json" },
        body: stream,
        duplex: "half",
      } as RequestInit);
      assert.equal(chunked.status, 413);
      assert.ok(pulled < 16 * chunk.length, `read ${pulled} bytes of a body it refused`);
    });

    await t.step("jsonObjectBody() refuses a body nested deeper than 128 levels", async () => {
      const post = (body: string) =>
        app.request(url("/api/projects/open"), {
          method: "POST",
          headers: { cookie: COOKIE, origin: OWN, "content-type": "application/json" },
          body,
        });
      const deep = await post(`{"path": ${"[".repeat(1_000_000)}`);
      assert.equal(deep.status, 400);
      assert.match((await deep.json()).error, /nested at most 128 levels deep/);
      // Brackets inside a string are text, not nesting.
      const quoted = await post(JSON.stringify({ path: "[".repeat(1000) }));
      assert.equal(quoted.status, 400);
      assert.doesNotMatch((await quoted.json()).error, /nested/);
    });

    await t.step("a bad query value is a 400 naming the parameter", async () => {
      const receipts = (query: string) =>
        app.request(url(`/api/receipts?${query}`), { headers: { cookie: COOKIE } });
      const project = `project=${encodeURIComponent(env.project)}`;
      for (const limit of ["-1", "0", "abc", "1.5", "1e9", ""]) {
        const response = await receipts(`${project}&limit=${limit}`);
        assert.equal(response.status, 400, `limit=${limit}`);
        assert.match((await response.json()).error, /^limit: /);
      }
      const missing = await receipts("limit=5");
      assert.equal(missing.status, 400);
      assert.match((await missing.json()).error, /^project: /);
      assert.equal((await receipts(`${project}&limit=5`)).status, 200);
      for (const id of ["a".repeat(3000), "Not An Id", "x"]) {
        const response = await receipts(`${project}&id=${encodeURIComponent(id)}`);
        assert.equal(response.status, 400, `id=${id.slice(0, 20)}`);
        assert.match((await response.json()).error, /^id: /);
      }
      assert.equal((await receipts(`${project}&id=tracker`)).status, 200);
    });

    await t.step(
      "opening the filesystem root, the home folder or a relative path is refused, saying why",
      async () => {
        const cases: [string, RegExp][] = [
          ["/", /filesystem root/],
          [userHome, /home folder/],
          [".", /absolute path/],
          ["etc", /absolute path/],
        ];
        for (const [path, reason] of cases) {
          const response = await open(path, {
            cookie: COOKIE,
            origin: OWN,
            "content-type": "application/json",
          });
          assert.equal(response.status, 400, `${path}: ${await response.clone().text()}`);
          assert.match((await response.json()).error, reason, path);
        }
        assert.equal(await readProject(env.kv, "/"), null);
        assert.equal(await readProject(env.kv, userHome), null);
      },
    );

    await t.step("opening a folder this process cannot write is refused, saying why", async () => {
      const readOnly = await readOnlyFolder(userHome);
      if (readOnly) {
        const response = await open(readOnly, {
          authorization: `Bearer ${TOKEN}`,
          "content-type": "application/json",
        });
        assert.equal(response.status, 409);
        assert.match((await response.json()).error, /cannot write in it/);
      }
      // Whoever runs the test (root included), a process whose --allow-write
      // leaves the folder out cannot write there.
      const allowed = await Deno.makeTempDir({ prefix: "sync-child-" });
      const outside = await Deno.makeTempDir({ prefix: "sync-outside-" });
      try {
        const child = await new Deno.Command(Deno.execPath(), {
          args: [
            "run",
            "--unstable-kv",
            "--unstable-worker-options",
            "--allow-read",
            `--allow-write=${allowed}`,
            "--allow-env",
            new URL("./_open_in_child.ts", import.meta.url).pathname,
            outside,
            TOKEN,
          ],
          env: { TMPDIR: allowed },
          stdout: "piped",
          stderr: "piped",
        }).output();
        const decoder = new TextDecoder();
        assert.equal(child.code, 0, decoder.decode(child.stderr));
        const { status, body } = JSON.parse(decoder.decode(child.stdout));
        assert.equal(status, 409);
        assert.match(body.error, /^Cannot open .* as a project: this user cannot write in it/);
      } finally {
        await Deno.remove(allowed, { recursive: true });
        await Deno.remove(outside, { recursive: true });
      }
    });
  } finally {
    if (realHome === undefined) Deno.env.delete("HOME");
    else Deno.env.set("HOME", realHome);
    await Deno.chmod(join(userHome, "read-only"), 0o755).catch(() => {});
    await Deno.remove(userHome, { recursive: true });
    await env.close();
  }
});
