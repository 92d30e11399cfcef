import assert from "node:assert/strict";
import { join } from "node:path";
import { account } from "../../../runtime/host/functions/account.ts";
import { type HostFunction, runHostFunction } from "../../../runtime/host/host_function.ts";
import type { HostFunctionContext } from "../../../runtime/host/host_function.ts";
import type { AccountGrant } from "../../../runtime/host/account_grant.ts";
import {
  AccountAccessError,
  InvalidInputError,
  NotFoundError,
  PayloadTooLargeError,
  PermissionDeniedError,
  SignInError,
  TransientError,
  UnknownOutcomeError,
} from "../../../runtime/errors.ts";
import { ACCOUNT_LIMITS } from "../../../runtime/limits.ts";
import type {
  AccountListing,
  NetResponse,
  Parsed,
  ParsedEvent,
  ParsedMessage,
} from "../../../runtime/extension_api/service.ts";
import { ParserPool } from "../../../runtime/parsers/mod.ts";
import { functionContext } from "../../internal/host_functions.ts";
import { rejectsWith } from "../../internal/rejects_with.ts";
import { writeMaildir } from "../../internal/fixture_sources/maildir.ts";
import { ICS_WINDOW, writeIcsFolder } from "../../internal/fixture_sources/ics_folder.ts";

const PERMISSIONS = ["background", "account.folder", "account.remote"];

/** A call's context with these permissions and this account. */
function withAccount(
  base: HostFunctionContext,
  grant: AccountGrant | undefined,
  more: Partial<HostFunctionContext> = {},
): HostFunctionContext {
  return {
    ...base,
    package: { manifest: { ...base.package.manifest, permissions: PERMISSIONS } },
    account: grant,
    ...more,
  };
}

function call(fn: HostFunction, args: unknown, context: HostFunctionContext): Promise<unknown> {
  return runHostFunction(fn as HostFunction<unknown>, args, context);
}

Deno.test("`account.*` act only in a call that carries the device's account", async (t) => {
  const setup = await functionContext();
  try {
    const context = withAccount(setup.context, undefined);
    for (
      const [fn, args] of [
        [account.list, {}],
        [account.read, "a"],
        [account.parseMail, ["a"]],
        [account.parseCalendar, [["a"], { from: ICS_WINDOW.start, days: 1 }]],
        [account.fetch, "/x"],
      ] as [HostFunction, unknown][]
    ) {
      await t.step(`${fn.name}() is refused in words`, async () => {
        await rejectsWith(
          call(fn, args, context),
          PermissionDeniedError,
          `${fn.name}() needs the device's account: it works only in a device's task, and this ` +
            `call is not one; run the task instead (sync devices run ${context.package.manifest.id}, ` +
            `or Read now on its page under Devices)`,
        );
      });
    }

    await t.step("without the permission, refused before anything else", async () => {
      await rejectsWith(
        call(account.list, {}, {
          ...setup.context,
          account: { id: "a", epoch: 0, kind: "folder", folder: "/" },
        }),
        PermissionDeniedError,
        /needs the account.folder permission, which box does not declare/,
      );
    });

    await t.step("a folder function with a remote account, and the other way round", async () => {
      const remote = withAccount(setup.context, {
        id: "a",
        epoch: 0,
        kind: "remote",
        origin: "https://example.org",
        credential: "secret",
      });
      await rejectsWith(call(account.list, {}, remote), PermissionDeniedError, /needs a folder/);
      const folder = withAccount(setup.context, {
        id: "a",
        epoch: 0,
        kind: "folder",
        folder: "/",
      });
      await rejectsWith(call(account.fetch, "/", folder), PermissionDeniedError, /remote account/);
    });
  } finally {
    await setup.close();
  }
});

Deno.test("`account.list()` and `account.read()` read the account folder, and nothing outside it", async (t) => {
  const setup = await functionContext();
  const root = await Deno.makeTempDir({ prefix: "sync-test-" });
  const folder = join(root, "Maildir");
  try {
    const truth = await writeMaildir(folder, { messages: 40, seed: 2 });
    await Deno.writeTextFile(join(root, "secret.txt"), "outside");
    await Deno.symlink(join(root, "secret.txt"), join(folder, "leak"));
    await Deno.symlink(join(root), join(folder, "up"));
    const inbox = truth.messages.find((m) => m.folder === "INBOX" && m.path.startsWith("cur/"))!;
    await Deno.symlink(join(folder, ...inbox.path.split("/")), join(folder, "inside-link"));
    const context = withAccount(setup.context, { id: "a", epoch: 1, kind: "folder", folder });

    await t.step("recursive listing finds every message with its size and mtime", async () => {
      const listing = await call(account.list, { recursive: true }, context) as AccountListing;
      assert.equal(listing.cursor, null);
      const files = new Map(
        listing.entries.filter((e) => e.kind === "file").map((e) => [e.path, e]),
      );
      for (const message of truth.messages) {
        const entry = files.get(message.path);
        assert.ok(entry, `${message.path} is listed`);
        assert.equal(entry.size, message.size);
        assert.equal(entry.mtime, message.mtime * 1000);
      }
      assert.ok(listing.entries.some((e) => e.path === ".Sent/cur" && e.kind === "folder"));
    });

    await t.step("links that lead outside are passed over; one inside is followed", async () => {
      const listing = await call(account.list, {}, context) as AccountListing;
      const paths = listing.entries.map((e) => e.path);
      assert.ok(!paths.includes("leak") && !paths.includes("up"), paths.join(" "));
      const inside = listing.entries.find((e) => e.path === "inside-link");
      assert.deepEqual(inside?.kind, "file");
      assert.equal(inside?.size, inbox.size);
      assert.ok(!listing.entries.some((e) => e.path.includes("/")), "not recursive");
    });

    await t.step("`under` lists a subfolder, paths still from the account folder", async () => {
      const listing = await call(account.list, { under: ".Sent" }, context) as AccountListing;
      assert.deepEqual(
        listing.entries.map((e) => e.path),
        [".Sent/cur", ".Sent/maildirfolder", ".Sent/new", ".Sent/tmp"],
      );
    });

    await t.step("escape via `..` is refused", async () => {
      await rejectsWith(
        call(account.read, "cur/../../secret.txt", context),
        AccountAccessError,
        /leads outside the account folder/,
      );
      await rejectsWith(
        call(account.list, { under: ".." }, context),
        AccountAccessError,
        /leads outside the account folder/,
      );
    });

    await t.step("escape via a link is refused, never saying where it leads", async () => {
      await rejectsWith(
        call(account.read, "leak", context),
        AccountAccessError,
        /a link leads outside the account folder/,
      );
      const error = await rejectsWith(
        call(account.read, "up/secret.txt", context),
        AccountAccessError,
        /a link leads outside the account folder/,
      );
      assert.ok(!error.message.includes(root), error.message);
      await rejectsWith(
        call(account.parseMail, ["leak"], context),
        AccountAccessError,
        /a link leads outside the account folder/,
      );
    });

    await t.step(
      "a file reads as text; a missing one, a folder, an absolute path refused",
      async () => {
        const text = await call(account.read, inbox.path, context) as string;
        assert.match(text, /^Return-Path:/);
        assert.equal(await call(account.read, "inside-link", context), text);
        await rejectsWith(call(account.read, "cur/nothing", context), NotFoundError, /no file/);
        await rejectsWith(call(account.read, "cur", context), AccountAccessError, /a folder/);
        await rejectsWith(
          call(account.read, `${inbox.path}/under-a-file`, context),
          NotFoundError,
          /no file/,
        );
        await rejectsWith(
          call(account.read, "/etc/passwd", context),
          InvalidInputError,
          /absolute/,
        );
      },
    );

    await t.step("a FIFO is refused unread, never waited on", async () => {
      const made = await new Deno.Command("mkfifo", { args: [join(folder, "pipe")] }).output();
      assert.ok(made.success);
      await rejectsWith(
        call(account.read, "pipe", context),
        AccountAccessError,
        /it is a FIFO, not a regular file/,
      );
      const listing = await call(account.list, {}, context) as AccountListing;
      assert.ok(!listing.entries.some((e) => e.path === "pipe"));
      await Deno.remove(join(folder, "pipe"));
    });

    await t.step("a file past the read limit is refused by its size", async () => {
      const big = new Uint8Array(ACCOUNT_LIMITS.maxReadBytes + 1).fill(0x61);
      await Deno.writeFile(join(folder, "big.txt"), big);
      await rejectsWith(
        call(account.read, "big.txt", context),
        PayloadTooLargeError,
        new RegExp(`the limit is ${ACCOUNT_LIMITS.maxReadBytes}`),
      );
    });

    await t.step("a missing account folder is an AccountAccessError", async () => {
      const gone = withAccount(setup.context, {
        id: "a",
        epoch: 1,
        kind: "folder",
        folder: join(root, "nowhere"),
      });
      await rejectsWith(call(account.list, {}, gone), AccountAccessError, /it is gone/);
      await rejectsWith(call(account.read, "x", gone), AccountAccessError, /it is gone/);
    });
  } finally {
    await setup.close();
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("`account.list()` pages through a large folder in path order", async () => {
  const setup = await functionContext();
  const folder = await Deno.makeTempDir({ prefix: "sync-test-" });
  try {
    // 1,503 entries: two pages and a bit, a page ending inside a folder.
    for (const sub of ["a", "a.b", "c"]) {
      await Deno.mkdir(join(folder, sub));
      for (let i = 0; i < 500; i++) {
        await Deno.writeTextFile(join(folder, sub, `m${String(i).padStart(3, "0")}`), "x");
      }
    }
    const context = withAccount(setup.context, { id: "a", epoch: 1, kind: "folder", folder });
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await call(account.list, { recursive: true, cursor }, context) as AccountListing;
      assert.ok(page.entries.length <= ACCOUNT_LIMITS.maxListEntries);
      seen.push(...page.entries.map((e) => e.path));
      cursor = page.cursor ?? undefined;
      pages++;
    } while (cursor !== undefined);
    assert.equal(pages, Math.ceil(1503 / ACCOUNT_LIMITS.maxListEntries));
    assert.equal(seen.length, 1503);
    assert.equal(new Set(seen).size, 1503);
    assert.deepEqual(seen.slice(0, 3), ["a", "a/m000", "a/m001"]);
    assert.equal(seen[501], "a.b");
    assert.equal(seen[1002], "c");
  } finally {
    await setup.close();
    await Deno.remove(folder, { recursive: true });
  }
});

Deno.test("`account.parseMail()` and `account.parseCalendar()` parse in the parser pool", async (t) => {
  const setup = await functionContext();
  const root = await Deno.makeTempDir({ prefix: "sync-test-" });
  const parsers = new ParserPool();
  try {
    const mailFolder = join(root, "Maildir");
    const truth = await writeMaildir(mailFolder, { messages: 20, seed: 4 });
    const mail = withAccount(setup.context, {
      id: "a",
      epoch: 1,
      kind: "folder",
      folder: mailFolder,
    }, { parsers });

    await t.step(
      "each path answered in order; a vanished file in its place, not thrown",
      async () => {
        const paths = truth.messages.slice(0, 5).map((m) => m.path);
        const gone = "cur/1.M1P1Q1.gone:2,S";
        const results = await call(
          account.parseMail,
          [paths[0], gone, ...paths.slice(1)],
          mail,
        ) as Parsed<
          ParsedMessage
        >[];
        assert.deepEqual(results.map((r) => r.path), [paths[0], gone, ...paths.slice(1)]);
        const missing = results[1];
        assert.ok(!missing.ok);
        assert.match(missing.reason, /it is gone/);
        for (const [i, message] of truth.messages.slice(0, 5).entries()) {
          const result = results[i === 0 ? 0 : i + 1];
          assert.equal(result.size, message.size);
          assert.equal(result.mtime, message.mtime * 1000);
          if (message.kind === "empty") continue;
          assert.ok(result.ok, !result.ok ? result.reason : "");
          assert.equal(result.value.messageId, message.messageId);
        }
      },
    );

    await t.step("more than 32 paths a call are refused", async () => {
      await rejectsWith(
        call(account.parseMail, Array(33).fill("cur/x"), mail),
        InvalidInputError,
        /at most 32 paths a call/,
      );
    });

    await t.step("a calendar folder's occurrences in the window", async () => {
      const calendarFolder = join(root, "calendar");
      const ics = await writeIcsFolder(calendarFolder, { seed: 3, events: 10 });
      const calendar = withAccount(setup.context, {
        id: "a",
        epoch: 1,
        kind: "folder",
        folder: calendarFolder,
      }, { parsers });
      const results = await call(
        account.parseCalendar,
        [ics.files.slice(0, 30), { from: ICS_WINDOW.start, days: ICS_WINDOW.days }],
        calendar,
      ) as Parsed<ParsedEvent[]>[];
      const found = results.flatMap((r) => r.ok ? r.value : []);
      const expected = ics.instances.filter((i) =>
        i.excluded !== "ended" && ics.files.slice(0, 30).includes(i.file)
      );
      assert.equal(found.length, expected.length);
      await rejectsWith(
        call(account.parseCalendar, [ics.files, {}], calendar),
        InvalidInputError,
        /calendar window needs from/,
      );
    });
  } finally {
    parsers.close();
    await setup.close();
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("`account.fetch()` reaches the account's origin only, adding the credential itself", async (t) => {
  const setup = await functionContext();
  const seen: { path: string; authorization: string | null }[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
    const path = new URL(request.url).pathname;
    seen.push({ path, authorization: request.headers.get("authorization") });
    if (path === "/hang") await new Promise((resolve) => setTimeout(resolve, 2_000));
    if (path === "/denied") return new Response("no", { status: 401 });
    if (path === "/forbidden") return new Response("no", { status: 403 });
    if (path === "/down") return new Response("later", { status: 503 });
    if (path === "/busy") return new Response("slow down", { status: 429 });
    return Response.json({ path, method: request.method, echoed: request.headers.get("x-note") });
  });
  const origin = `http://127.0.0.1:${server.addr.port}`;
  try {
    const context = withAccount(setup.context, {
      id: "a",
      epoch: 1,
      kind: "remote",
      origin,
      credential: "s3cret-token",
    }, { limits: { ...setup.context.limits, fetchTimeoutMs: 300 } });

    await t.step("a path on the origin, with the credential the handler never holds", async () => {
      const response = await call(account.fetch, {
        url: "/api/items?x=1",
        headers: { Authorization: "Bearer forged", "x-note": "hi" },
      }, context) as NetResponse;
      assert.equal(response.status, 200);
      assert.deepEqual(JSON.parse(response.body), {
        path: "/api/items",
        method: "GET",
        echoed: "hi",
      });
      assert.equal(seen.at(-1)?.authorization, "Bearer s3cret-token");
      assert.ok(!JSON.stringify(response).includes("s3cret-token"));
    });

    await t.step("a full URL on the origin is taken too", async () => {
      const response = await call(account.fetch, `${origin}/full`, context) as NetResponse;
      assert.equal(JSON.parse(response.body).path, "/full");
    });

    await t.step("another origin is refused, and nothing is sent", async () => {
      const before = seen.length;
      await rejectsWith(
        call(account.fetch, "https://elsewhere.example/steal", context),
        PermissionDeniedError,
        new RegExp(`reaches only the account's origin ${origin}`),
      );
      await rejectsWith(
        call(account.fetch, `http://127.0.0.1:${server.addr.port + 1}/x`, context),
        PermissionDeniedError,
        /reaches only the account's origin/,
      );
      assert.equal(seen.length, before);
    });

    await t.step("a URL with a user name or password is refused; nothing is sent", async () => {
      const before = seen.length;
      await rejectsWith(
        call(account.fetch, `http://ada:pw@127.0.0.1:${server.addr.port}/x`, context),
        InvalidInputError,
        /carries a user name or password; the host adds the account's credential itself/,
      );
      assert.equal(seen.length, before);
    });

    await t.step("a malformed header is the handler's error, even for a POST", async () => {
      const before = seen.length;
      for (const method of ["GET", "POST"]) {
        await rejectsWith(
          call(
            account.fetch,
            { url: "/x", method, headers: { "x-note": "a\r\nX-Evil: 1" } },
            context,
          ),
          InvalidInputError,
          /account\.fetch\(\): the request's headers cannot be sent: Invalid header value/,
        );
      }
      assert.equal(seen.length, before);
    });

    await t.step(
      "a credential no header can carry is a SignInError that never shows it",
      async () => {
        const broken = withAccount(setup.context, {
          id: "a",
          epoch: 1,
          kind: "remote",
          origin,
          credential: "s3cret-token\r\nX-Evil: 1",
        });
        const error = await rejectsWith(
          call(account.fetch, "/x", broken),
          SignInError,
          /the account's credential cannot be sent in a header/,
        );
        assert.ok(!error.message.includes("s3cret-token"), error.message);
      },
    );

    await t.step("401 and 403 are SignInError", async () => {
      await rejectsWith(call(account.fetch, "/denied", context), SignInError, /sign in again/);
      await rejectsWith(call(account.fetch, "/forbidden", context), SignInError, /\(403\)/);
    });

    await t.step("5xx and 429 for a GET are TransientError; a POST's 5xx is answered", async () => {
      await rejectsWith(call(account.fetch, "/down", context), TransientError, /answered 503/);
      await rejectsWith(call(account.fetch, "/busy", context), TransientError, /answered 429/);
      const posted = await call(account.fetch, { url: "/down", method: "POST" }, context);
      assert.equal((posted as NetResponse).status, 503);
    });

    await t.step(
      "no answer: TransientError for a GET, UnknownOutcomeError for a POST",
      async () => {
        const get = await rejectsWith(
          call(account.fetch, "/hang", context),
          TransientError,
          /no answer within 300 ms/,
        );
        const post = await rejectsWith(
          call(account.fetch, { url: "/hang", method: "POST", body: "{}" }, context),
          UnknownOutcomeError,
          /whether it was done is unknown, so it is not sent again/,
        );
        for (const error of [get, post]) assert.ok(!error.message.includes("s3cret-token"));
      },
    );
  } finally {
    await server.shutdown();
    await setup.close();
  }
});

// Without the check of the opened file's own name, a few of these 20,000 racing reads return
// the file outside: the swap is timed often enough to be seen.
Deno.test("`account.read()` never reads through a folder swapped for a link after its check", async () => {
  const setup = await functionContext();
  const root = await Deno.makeTempDir({ prefix: "sync-test-" });
  const folder = join(root, "account");
  let swapper: Deno.ChildProcess | undefined;
  try {
    await Deno.mkdir(join(folder, "d"), { recursive: true });
    await Deno.mkdir(join(folder, "hold"));
    await Deno.writeTextFile(join(folder, "d", "f"), "inside");
    await Deno.mkdir(join(root, "out"));
    await Deno.writeTextFile(join(root, "out", "f"), "outside");
    // `d` is a folder when checked and, now and then, a link leading outside when opened.
    swapper = new Deno.Command("bash", {
      args: [
        "-c",
        "while true; do mv -T d hold/d; ln -s ../out d; mv -T hold/d d.x; rm d; mv -T d.x d; done",
      ],
      cwd: folder,
      stdout: "null",
      stderr: "null",
    }).spawn();
    const context = withAccount(setup.context, { id: "a", epoch: 1, kind: "folder", folder });
    const read: Record<string, number> = {};
    const lane = async () => {
      for (let i = 0; i < 5_000; i++) {
        try {
          const text = await call(account.read, "d/f", context) as string;
          read[text] = (read[text] ?? 0) + 1;
        } catch {
          // Refused or not there this time: the swap was seen.
        }
      }
    };
    await Promise.all([lane(), lane(), lane(), lane()]);
    assert.equal(read.outside, undefined, JSON.stringify(read));
    assert.ok(read.inside > 0, JSON.stringify(read));
  } finally {
    swapper?.kill();
    await swapper?.status;
    await setup.close();
    await Deno.remove(root, { recursive: true });
  }
});

/** A calendar whose one event repeats every second since 1970: its parse runs until stopped. */
const SPINNING = [
  "BEGIN:VCALENDAR",
  "VERSION:2.0",
  "BEGIN:VEVENT",
  "UID:spin@example.org",
  "DTSTART:19700101T000000Z",
  "DTEND:19700101T000001Z",
  "RRULE:FREQ=SECONDLY",
  "END:VEVENT",
  "END:VCALENDAR",
  "",
].join("\r\n");

Deno.test("`account.parseCalendar()` parses no further once its handler call has ended", async () => {
  const setup = await functionContext();
  const folder = await Deno.makeTempDir({ prefix: "sync-test-" });
  // Each file runs to the parse deadline, which replaces its worker: a count of files parsed.
  const parsers = new ParserPool({ limits: { jobTimeoutMs: 500, maxRecurrenceSteps: 1e12 } });
  try {
    const paths = Array.from({ length: 8 }, (_, i) => `spin${i}.ics`);
    for (const path of paths) await Deno.writeTextFile(join(folder, path), SPINNING);
    const ended = new AbortController();
    const context = withAccount(
      setup.context,
      { id: "a", epoch: 1, kind: "folder", folder },
      { parsers, signal: ended.signal },
    );
    const running = call(
      account.parseCalendar,
      [paths, { from: ICS_WINDOW.start, days: 1 }],
      context,
    );
    ended.abort();
    await rejectsWith(running, TransientError, /the handler call it was made for ended/);
    assert.ok(
      parsers.replacedWorkers <= parsers.size,
      `${parsers.replacedWorkers} files parsed after the call ended`,
    );
  } finally {
    parsers.close();
    await setup.close();
    await Deno.remove(folder, { recursive: true });
  }
});

Deno.test("`account.parseCalendar()` stops once its answer is past what a call carries", async () => {
  const setup = await functionContext();
  const folder = await Deno.makeTempDir({ prefix: "sync-test-" });
  const parsers = new ParserPool();
  try {
    // A daily event with a long description: about 1.7 million characters of occurrences a file.
    const heavy = [
      "BEGIN:VCALENDAR",
      "VERSION:2.0",
      "BEGIN:VEVENT",
      "UID:heavy@example.org",
      "DTSTART:20270101T090000Z",
      "DTEND:20270101T100000Z",
      "RRULE:FREQ=DAILY",
      `DESCRIPTION:${"d".repeat(4_000)}`,
      "END:VEVENT",
      "END:VCALENDAR",
      "",
    ].join("\r\n");
    const paths = Array.from({ length: 32 }, (_, i) => `heavy${i}.ics`);
    for (const path of paths) await Deno.writeTextFile(join(folder, path), heavy);
    const context = withAccount(
      setup.context,
      { id: "a", epoch: 1, kind: "folder", folder },
      { parsers },
    );
    await rejectsWith(
      call(account.parseCalendar, [paths, { from: "2027-01-01T00:00:00Z", days: 400 }], context),
      PayloadTooLargeError,
      new RegExp(
        `account\\.parseCalendar\\(\\) answers more than ${ACCOUNT_LIMITS.maxParseAnswerChars} ` +
          `characters for these 32 paths; ask for fewer paths a call`,
      ),
    );
  } finally {
    parsers.close();
    await setup.close();
    await Deno.remove(folder, { recursive: true });
  }
});

Deno.test("`account.list()` passes over entries whose path is longer than a path may be", async () => {
  const setup = await functionContext();
  const folder = await Deno.makeTempDir({ prefix: "sync-test-" });
  try {
    // Six folders of 200-character names: the deepest paths are past 1,024 characters.
    let dir = folder;
    for (let level = 0; level < 6; level++) {
      dir = join(dir, String(level).repeat(200));
      await Deno.mkdir(dir);
      await Deno.writeTextFile(join(dir, "m"), "x");
    }
    const context = withAccount(setup.context, { id: "a", epoch: 1, kind: "folder", folder });
    const listing = await call(account.list, { recursive: true }, context) as AccountListing;
    const paths = listing.entries.map((e) => e.path);
    assert.ok(paths.length > 0);
    for (const path of paths) {
      assert.ok(path.length <= ACCOUNT_LIMITS.maxPathChars, `${path.length} characters listed`);
    }
    // What is listed can be named back: as a path to read, as a cursor to list on from.
    const deepest = listing.entries.filter((e) => e.kind === "file").at(-1)!;
    assert.equal(await call(account.read, deepest.path, context), "x");
    await call(account.list, { recursive: true, cursor: paths.at(-1) }, context);
  } finally {
    await setup.close();
    await Deno.remove(folder, { recursive: true });
  }
});
