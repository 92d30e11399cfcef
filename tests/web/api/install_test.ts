import assert from "node:assert/strict";
import { join } from "node:path";
import { readApproval, readPackageRef } from "../../../runtime/packages/mod.ts";
import type {
  InstallAnswer,
  InstallCard,
  UploadAnswer,
} from "../../../runtime/web/api/events_types.ts";
import { createApp } from "../../../runtime/web/app.ts";
import { exists, packageArchive } from "../../internal/cli.ts";
import { testHost, writePackage } from "../../internal/packages.ts";

const TOKEN = "t".repeat(48);
const ORIGIN = "http://127.0.0.1:4321";
const HEADERS = { cookie: `sync_token_4321=${TOKEN}`, origin: ORIGIN };

const HOSTILE = "<img src=x onerror=alert(1)>";

Deno.test("the install routes answer the card without installing, and install as `sync install` does", async (t) => {
  const env = await testHost();
  const app = createApp(env.host, { token: TOKEN, port: 4321 });
  const packages = join(env.home, "..", "packages");
  const post = (path: string, body: unknown) =>
    app.request(`${ORIGIN}${path}`, {
      method: "POST",
      headers: { ...HEADERS, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
  const upload = (bytes: Uint8Array<ArrayBuffer>, type = "application/octet-stream") =>
    app.request(`${ORIGIN}/api/uploads`, {
      method: "POST",
      headers: { ...HEADERS, "content-type": type },
      body: bytes,
    });
  const storeEntries = async () => {
    try {
      return (await Array.fromAsync(Deno.readDir(join(env.home, "extensions", "store"))))
        .map((e) => e.name);
    } catch {
      return [];
    }
  };
  try {
    const first = await writePackage(packages, {
      id: "feed",
      permissions: ["background", "schedule"],
      handlers: ["feed.poll"],
      service: `export default function register() { return { "feed.poll": () => 1 }; }`,
      manifest: {
        description: HOSTILE,
        schedule: [{ handler: "feed.poll", description: "Polls the feed", every: "1h" }],
      },
    });

    await t.step(
      "the card of a folder says what it is, runs and asks; nothing is stored",
      async () => {
        const response = await post("/api/install/card", { project: env.project, source: first });
        assert.equal(response.status, 200);
        const card: InstallCard = await response.json();
        assert.equal(card.project, env.project);
        assert.equal(card.approval, "new");
        assert.equal(card.installable, true);
        assert.deepEqual(card.problems, []);
        assert.equal(card.package?.id, "feed");
        assert.equal(card.package?.version, "1.0.0");
        // The package's text is answered as it is, for the page to show as text.
        assert.equal(card.package?.description, HOSTILE);
        assert.deepEqual(card.package?.schedule, [{
          handler: "feed.poll",
          description: "Polls the feed",
          every: "1h",
          wording: "every hour",
        }]);
        assert.deepEqual(card.permissions.map((p) => p.line), [
          "background — may run handlers when nobody is looking",
          "schedule — may ask the clock to run its handlers on an interval",
        ]);
        assert.equal(await readPackageRef(env.kv, "feed"), null);
        assert.equal(await readApproval(env.kv, env.project, "feed"), null);
        assert.equal(await exists(join(env.project, ".sync")), false);
      },
    );

    await t.step("an install without approval is refused in the CLI's words", async () => {
      const response = await post("/api/install", { project: env.project, source: first });
      assert.equal(response.status, 403);
      const body = await response.json();
      assert.equal(body.name, "ApprovalRequiredError");
      assert.match(body.error, /without approval\. It asks for:\n {2}background — may run/);
      assert.equal(await readPackageRef(env.kv, "feed"), null);
    });

    await t.step("with approve it installs and says what `sync install` says", async () => {
      const response = await post("/api/install", {
        project: env.project,
        source: first,
        approve: true,
      });
      assert.equal(response.status, 200);
      const answer: InstallAnswer = await response.json();
      assert.equal(answer.id, "feed");
      assert.equal(answer.from, "folder");
      assert.deepEqual(answer.approved, ["background", "schedule"]);
      assert.deepEqual(answer.lines, [
        `Installed feed@1.0.0 (folder: ${first}) into ${env.project}`,
        "Approved: background, schedule",
      ]);
      assert.equal((await readApproval(env.kv, env.project, "feed"))?.version, "1.0.0");
    });

    const wider = new Uint8Array(packageArchive({
      id: "feed",
      version: "1.1.0",
      permissions: ["background", "schedule", "net:api.example.com", "work.agent"],
      handlers: ["feed.poll"],
      service: `export default function register() { return { "feed.poll": () => 2 }; }`,
      manifest: {
        schedule: [{ handler: "feed.poll", description: "Polls the feed", every: "15m" }],
      },
    }));
    let uploaded = "";

    await t.step("an archive is uploaded as bytes and named by an opaque id", async () => {
      const response = await upload(wider);
      assert.equal(response.status, 201);
      const answer: UploadAnswer = await response.json();
      assert.match(answer.upload, /^[0-9a-f]{32}$/);
      assert.equal(answer.bytes, wider.byteLength);
      uploaded = answer.upload;
    });

    await t.step(
      "the card of a widening update shows only what is new; nothing is staged after",
      async () => {
        const before = await storeEntries();
        const response = await post("/api/install/card", {
          project: env.project,
          source: { upload: uploaded },
        });
        assert.equal(response.status, 200);
        const card: InstallCard = await response.json();
        assert.equal(card.approval, "widens");
        assert.equal(card.approvedVersion, "1.0.0");
        assert.equal(card.package?.version, "1.1.0");
        assert.deepEqual(card.permissions.map((p) => p.line), [
          "net:api.example.com — may reach api.example.com over the network, through the host",
          "work.agent — may order agent sessions, which spend your agent's tokens, even while " +
          "you are away",
        ]);
        assert.equal(card.package?.asks.length, 4);
        assert.equal(card.package?.schedule[0].wording, "every 15 minutes");
        // An archive where a folder served is another package of the id: the card says so.
        assert.equal(card.replaces?.text, `feed 1.0.0 from ${first}`);
        assert.equal(card.replaces?.why, "the new one comes from an archive");
        // Unpacked into a staging folder for the card, and removed before it answered.
        assert.deepEqual(await storeEntries(), before);
        assert.equal((await readPackageRef(env.kv, "feed"))?.version, "1.0.0");
      },
    );

    await t.step("without replace, the API refuses to replace the folder's package", async () => {
      const response = await post("/api/install", {
        project: env.project,
        source: { upload: uploaded },
        approve: true,
      });
      assert.equal(response.status, 403);
      assert.match(
        (await response.json()).error,
        new RegExp(
          `^Cannot install feed 1\\.1\\.0 from an archive \\(digest [0-9a-f]{16}\\) into ` +
            `${env.project} without your word: it would replace feed 1\\.0\\.0 from ${first} in ` +
            `every project that lists feed; the new one comes from an archive\\.\\n` +
            `To replace it: send "replace": true with the install$`,
        ),
      );
      assert.equal((await readPackageRef(env.kv, "feed"))?.dir, first);
    });

    await t.step("installing the upload with approval takes it; the id is gone after", async () => {
      const response = await post("/api/install", {
        project: env.project,
        source: { upload: uploaded },
        approve: true,
        replace: true,
      });
      assert.equal(response.status, 200);
      const answer: InstallAnswer = await response.json();
      assert.equal(answer.version, "1.1.0");
      assert.equal(answer.from, "archive");
      assert.deepEqual(answer.approved, ["net:api.example.com", "work.agent"]);
      const again = await post("/api/install/card", {
        project: env.project,
        source: { upload: uploaded },
      });
      assert.equal(again.status, 404);
      assert.match((await again.json()).error, /There is no upload/);
    });

    await t.step("check's problems are on the card as check prints them", async () => {
      const broken = await writePackage(packages, {
        id: "broken",
        handlers: ["broken.run"],
        service: `export default function register() {\n  setTimeout(() => 0, 1);\n` +
          `  return { "broken.run": () => 1 };\n}\n`,
      });
      const response = await post("/api/install/card", { project: env.project, source: broken });
      assert.equal(response.status, 200);
      const card: InstallCard = await response.json();
      assert.equal(card.installable, false);
      assert.ok(card.problems.length > 0);
      // Problems come in line order: the one at the call of setTimeout.
      const problem = card.problems.find((p) =>
        p.problem.file === "service/index.js" && p.problem.line === 2
      );
      assert.ok(problem, JSON.stringify(card.problems));
      assert.match(problem.text, /^service\/index\.js:2:\d+ {2}.*setTimeout[^]*\n {2}hint: /);
    });

    await t.step(
      "a card of a package whose manifest cannot be read has only problems",
      async () => {
        const bare = join(packages, "bare");
        await Deno.mkdir(bare, { recursive: true });
        await Deno.writeTextFile(join(bare, "manifest.json"), "{ not json");
        const response = await post("/api/install/card", { project: env.project, source: bare });
        assert.equal(response.status, 200);
        const card: InstallCard = await response.json();
        assert.equal(card.package, null);
        assert.equal(card.approval, null);
        assert.equal(card.installable, false);
        assert.match(card.problems[0].text, /^manifest\.json/);
      },
    );

    await t.step("a bad body is refused naming what was wrong", async () => {
      const cases: [unknown, RegExp][] = [
        [{ source: first }, /^project: /],
        [{ project: "relative/p", source: first }, /^project: /],
        [{ project: env.project, source: "relative/pkg" }, /^source: "relative\/pkg" is relative/],
        [{ project: env.project, source: { path: first } }, /^source: expected/],
        [{ project: env.project, source: { upload: "../../etc/passwd" } }, /not an upload id/],
        [[1], /takes a JSON object/],
      ];
      for (const [body, error] of cases) {
        const response = await post("/api/install/card", body);
        assert.equal(response.status, 400, JSON.stringify(body));
        assert.match((await response.json()).error, error);
      }
      const approve = await post("/api/install", {
        project: env.project,
        source: first,
        approve: "yes",
      });
      assert.equal(approve.status, 400);
      assert.match((await approve.json()).error, /^approve: /);
      const replace = await post("/api/install", {
        project: env.project,
        source: first,
        replace: 1,
      });
      assert.equal(replace.status, 400);
      assert.match((await replace.json()).error, /^replace: expected true /);
      const missing = await post("/api/install/card", {
        project: env.project,
        source: join(packages, "no-such"),
      });
      assert.equal(missing.status, 404);
    });

    await t.step(
      "uploads take only octet-stream; the other routes still take only JSON",
      async () => {
        const json = await upload(wider, "application/json");
        assert.equal(json.status, 415);
        assert.match((await json.json()).error, /application\/octet-stream/);
        const empty = await upload(new Uint8Array(0));
        assert.equal(empty.status, 400);
        for (const path of ["/api/install", "/api/install/card", "/api/projects/open"]) {
          const response = await app.request(`${ORIGIN}${path}`, {
            method: "POST",
            headers: { ...HEADERS, "content-type": "application/octet-stream" },
            body: wider,
          });
          assert.equal(response.status, 415, path);
          assert.match((await response.json()).error, /takes a JSON body/);
        }
      },
    );

    await t.step(
      "an upload past the archive limit is refused with 413 and nothing is kept",
      async () => {
        const declared = await app.request(`${ORIGIN}/api/uploads`, {
          method: "POST",
          headers: {
            ...HEADERS,
            "content-type": "application/octet-stream",
            "content-length": String(33 * 1024 * 1024),
          },
          body: new Uint8Array(16),
        });
        assert.equal(declared.status, 413);
        // The limit is said in bytes and in the units a person reads.
        assert.equal(
          (await declared.json()).error,
          "The upload is 34603008 bytes (33 MiB); the largest archive Sync installs is " +
            "33554432 bytes (32 MiB)",
        );
        // No length declared: counted as it arrives.
        let sent = 0;
        const chunk = new Uint8Array(1024 * 1024);
        const body = new ReadableStream<Uint8Array>({
          pull(controller) {
            if (sent++ < 40) controller.enqueue(chunk);
            else controller.close();
          },
        });
        const streamed = await app.request(`${ORIGIN}/api/uploads`, {
          method: "POST",
          headers: { ...HEADERS, "content-type": "application/octet-stream" },
          body,
          // @ts-ignore: a streamed body needs duplex, which Deno's RequestInit types lack
          duplex: "half",
        });
        assert.equal(streamed.status, 413);
        assert.match((await streamed.json()).error, /larger than 33554432 bytes \(32 MiB\)/);
        const left = await Array.fromAsync(Deno.readDir(join(env.home, "cache", "uploads")));
        assert.deepEqual(left, []);
      },
    );

    await t.step(
      "a refusal of an upload names it the uploaded archive, not its file in the cache",
      async () => {
        const sent = await upload(new TextEncoder().encode("not an archive at all"));
        const { upload: id }: UploadAnswer = await sent.json();
        for (const path of ["/api/install/card", "/api/install"]) {
          const response = await post(path, {
            project: env.project,
            source: { upload: id },
            approve: true,
          });
          assert.equal(response.status, 400);
          const { error } = await response.json();
          assert.match(
            error,
            /^Cannot unpack the uploaded archive: it is not a recognised archive/,
          );
          assert.doesNotMatch(error, /cache/);
        }
      },
    );

    await t.step("uploads and cards pass the guards: no token, no card", async () => {
      const response = await app.request(`${ORIGIN}/api/uploads`, {
        method: "POST",
        headers: { origin: ORIGIN, "content-type": "application/octet-stream" },
        body: wider,
      });
      assert.equal(response.status, 401);
      const foreign = await app.request(`${ORIGIN}/api/uploads`, {
        method: "POST",
        headers: {
          ...HEADERS,
          origin: "https://evil.example",
          "content-type": "application/octet-stream",
        },
        body: wider,
      });
      assert.equal(foreign.status, 403);
    });
  } finally {
    await env.close();
  }
});
