import assert from "node:assert/strict";
import { join } from "node:path";
import { Host } from "../runtime/host/host.ts";
import { installPackage } from "../runtime/lifecycle/install.ts";
import { DEFAULT_LIMITS } from "../runtime/limits.ts";
import { buildPackage } from "../runtime/author/build.ts";
import { checkPackage } from "../runtime/author/check/check.ts";
import { listRecords } from "../runtime/memory/store.ts";
import { writeRecord } from "../runtime/memory/write_record.ts";
import { listReceipts } from "../runtime/host/receipts.ts";
import { readWorkOrder } from "../runtime/work/order.ts";
import { writePackage } from "./internal/packages.ts";

const EXTENSIONS = new URL("../extensions/", import.meta.url).pathname;

/** The examples with modules built from src/: a service module, a screen, or both. */
const BUILT = ["hello", "issues", "triage", "tail", "mail", "calendar"];

/** A tracker served from a real local server; `issues` changes what it answers. */
interface Tracker {
  issues: unknown[];
  status: number;
  requests: string[];
  /** Performs the host's `net.fetch`, sending tracker.example.com to the local server. */
  fetch: typeof fetch;
  /** Resolves tracker.example.com to a public address, as the name would on the internet. */
  resolve: (hostname: string) => Promise<string[]>;
  close(): Promise<void>;
}

function startTracker(): Tracker {
  const tracker = {
    issues: [] as unknown[],
    status: 200,
    requests: [] as string[],
  };
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (request) => {
    const url = new URL(request.url);
    tracker.requests.push(`${request.method} ${url.pathname}`);
    if (url.pathname !== "/api/issues") return new Response("not found", { status: 404 });
    return Response.json(tracker.status === 200 ? tracker.issues : { error: "down" }, {
      status: tracker.status,
    });
  });
  const local = `http://127.0.0.1:${server.addr.port}`;
  return Object.assign(tracker, {
    fetch: ((input: string | URL | Request, init?: RequestInit) => {
      const url = new URL(input instanceof Request ? input.url : input);
      assert.equal(url.host, "tracker.example.com", "the package fetched an undeclared host");
      return fetch(`${local}${url.pathname}${url.search}`, init);
    }) as typeof fetch,
    resolve: (hostname: string) => {
      assert.equal(hostname, "tracker.example.com", "the package resolved an undeclared host");
      return Promise.resolve(["203.0.113.7"]);
    },
    close: () => server.shutdown(),
  });
}

/** A host over `:memory:` KV with a temp home and project, whose `net.fetch` reaches `tracker`. */
async function exampleHost(tracker?: Tracker) {
  const root = await Deno.makeTempDir({ prefix: "sync-examples-" });
  await Deno.mkdir(join(root, "project"));
  const project = await Deno.realPath(join(root, "project"));
  const kv = await Deno.openKv(":memory:");
  const logs: string[] = [];
  const host = new Host({
    kv,
    home: join(root, "home"),
    limits: DEFAULT_LIMITS,
    log: (line) => logs.push(line),
    fetch: tracker?.fetch,
    resolve: tracker?.resolve,
  });
  return {
    host,
    kv,
    root,
    project,
    logs,
    install: (dir: string) => installPackage(host, dir, project, { approve: true }),
    call: async (id: string, handler: string, occasion: "clock" | "extension", payload?: unknown) =>
      (await host.callHandler(project, id, handler, {
        occasion: { kind: occasion },
        source: occasion === "clock" ? { kind: "clock" } : { kind: "person" },
        payload,
      })).value,
    records: async (kind: string) =>
      (await listRecords(await host.projectMemory(project), { kind, limit: 500 })).records,
    async close() {
      await host.close();
      kv.close();
      await Deno.remove(root, { recursive: true });
    },
  };
}

/** What building each example writes: its service module, and the screens of Issues and Tail. */
const BUILT_FILES: Record<string, string[]> = {
  hello: ["service/index.js"],
  issues: ["service/index.js", "ui/index.js"],
  triage: ["service/index.js"],
  tail: ["ui/index.js"],
  mail: ["service/index.js"],
  calendar: ["service/index.js"],
};

Deno.test("the examples' committed built modules are what building src/ produces", async (t) => {
  for (const id of BUILT) {
    await t.step(`extensions/${id}`, async () => {
      const copy = await Deno.makeTempDir({ prefix: `sync-example-${id}-` });
      try {
        await Deno.copyFile(join(EXTENSIONS, id, "manifest.json"), join(copy, "manifest.json"));
        await Deno.copyFile(join(EXTENSIONS, id, "deno.json"), join(copy, "deno.json")).catch(
          () => {},
        );
        await Deno.mkdir(join(copy, "src"));
        for await (const entry of Deno.readDir(join(EXTENSIONS, id, "src"))) {
          await Deno.copyFile(
            join(EXTENSIONS, id, "src", entry.name),
            join(copy, "src", entry.name),
          );
        }
        const { outputs } = await buildPackage(copy);
        assert.deepEqual(outputs.map((o) => o.output), BUILT_FILES[id]);
        for (const file of BUILT_FILES[id]) {
          assert.equal(
            await Deno.readTextFile(join(copy, file)),
            await Deno.readTextFile(join(EXTENSIONS, id, file)),
            `extensions/${id}/${file} is stale: run deno task build extensions/${id}`,
          );
        }
      } finally {
        await Deno.remove(copy, { recursive: true });
      }
    });
  }
});

Deno.test("the examples pass `checkPackage()`", async (t) => {
  for (const id of [...BUILT, "decisions"]) {
    await t.step(`extensions/${id}`, async () => {
      // A copy, so checking (which builds) never writes into the checkout.
      const copy = await Deno.makeTempDir({ prefix: `sync-example-${id}-` });
      try {
        await copyFolder(join(EXTENSIONS, id), copy);
        const report = await checkPackage(copy);
        assert.deepEqual(report.problems, []);
        assert.equal(report.ok, true);
      } finally {
        await Deno.remove(copy, { recursive: true });
      }
    });
  }
});

async function copyFolder(from: string, to: string): Promise<void> {
  await Deno.mkdir(to, { recursive: true });
  for await (const entry of Deno.readDir(from)) {
    if (entry.isDirectory) await copyFolder(join(from, entry.name), join(to, entry.name));
    else await Deno.copyFile(join(from, entry.name), join(to, entry.name));
  }
}

Deno.test("extensions/hello greets, writes hello.greeting records and counts them", async () => {
  const env = await exampleHost();
  try {
    await env.install(join(EXTENSIONS, "hello"));
    assert.deepEqual(await env.call("hello", "hello.greet", "extension", { name: "Ada" }), {
      key: "hello.greeting/1",
      greeting: "Hello, Ada!",
    });
    assert.deepEqual(await env.call("hello", "hello.greet", "extension", null), {
      key: "hello.greeting/2",
      greeting: "Hello, world!",
    });
    assert.deepEqual(await env.call("hello", "hello.count", "extension"), { count: 2 });
    assert.deepEqual(
      (await env.records("hello.greeting")).map((r) => [r.key, r.title, r.fields]),
      [
        ["hello.greeting/1", "Hello, Ada!", { name: "Ada" }],
        ["hello.greeting/2", "Hello, world!", { name: "world" }],
      ],
    );
    assert.deepEqual(env.logs, [
      "[hello] greeted Ada (extension)",
      "[hello] greeted world (extension)",
    ]);
  } finally {
    await env.close();
  }
});

Deno.test("extensions/issues polls the tracker on the clock and writes issues.issue records", async (t) => {
  const tracker = startTracker();
  const env = await exampleHost(tracker);
  try {
    await env.install(join(EXTENSIONS, "issues"));
    tracker.issues = [
      {
        number: 7,
        title: "Crash on save",
        state: "open",
        body: "Saving a file with an emoji in its name crashes.",
        url: "https://tracker.example.com/7",
        updatedAt: "2026-01-02T10:00:00Z",
      },
      {
        number: 8,
        title: "Dark mode",
        state: "closed",
        body: "",
        url: "https://tracker.example.com/8",
        updatedAt: "2026-01-03T10:00:00Z",
      },
    ];

    await t.step("the first poll writes one record per issue, content and all", async () => {
      assert.deepEqual(await env.call("issues", "issues.poll", "clock"), {
        fetched: 2,
        written: 2,
        unchanged: 0,
      });
      assert.deepEqual(tracker.requests, ["GET /api/issues"]);
      const issues = await env.records("issues.issue");
      assert.deepEqual(issues.map((r) => [r.key, r.title, r.fields, r.updatedBy]), [
        ["issues.issue/7", "Crash on save", {
          number: 7,
          state: "open",
          url: "https://tracker.example.com/7",
          updatedAt: "2026-01-02T10:00:00Z",
        }, "issues"],
        ["issues.issue/8", "Dark mode", {
          number: 8,
          state: "closed",
          url: "https://tracker.example.com/8",
          updatedAt: "2026-01-03T10:00:00Z",
        }, "issues"],
      ]);
      const [last] = await env.records("issues.poll");
      assert.equal(last.key, "issues.poll/last");
      assert.deepEqual([last.fields.fetched, last.fields.written], [2, 2]);
      assert.deepEqual(env.logs, ["[issues] clock: read 2 issues, wrote 2"]);
    });

    await t.step("the receipt says the clock called it", async () => {
      const [receipt] = await listReceipts(env.kv, env.project, { packageId: "issues", limit: 1 });
      assert.deepEqual([receipt.handler, receipt.occasion, receipt.outcome], [
        "issues.poll",
        { kind: "clock" },
        "ok",
      ]);
    });

    await t.step("a poll with nothing new writes no issue", async () => {
      assert.deepEqual(await env.call("issues", "issues.poll", "clock"), {
        fetched: 2,
        written: 0,
        unchanged: 2,
      });
    });

    await t.step("a changed issue is rewritten and its revision moves on", async () => {
      tracker.issues[0] = {
        ...tracker.issues[0] as object,
        state: "closed",
        updatedAt: "2026-01-04T10:00:00Z",
      };
      assert.deepEqual(await env.call("issues", "issues.poll", "clock"), {
        fetched: 2,
        written: 1,
        unchanged: 1,
      });
      const [seven] = await env.records("issues.issue");
      assert.deepEqual([seven.revision, seven.fields.state], [2, "closed"]);
    });

    await t.step("a tracker that fails fails the call and changes nothing", async () => {
      const before = await env.records("issues.poll");
      tracker.status = 503;
      await assert.rejects(
        () => env.call("issues", "issues.poll", "clock"),
        (error: Error) =>
          error.name === "HandlerFailedError" &&
          /the tracker answered 503; the issues are unchanged/.test(error.message),
      );
      assert.deepEqual(await env.records("issues.poll"), before);
    });
  } finally {
    await env.close();
    await tracker.close();
  }
});

Deno.test("extensions/triage orders an agent session per new open issue, once", async (t) => {
  const tracker = startTracker();
  const env = await exampleHost(tracker);
  try {
    await env.install(join(EXTENSIONS, "issues"));
    await env.install(join(EXTENSIONS, "triage"));
    tracker.issues = [1, 2, 3].map((number) => ({
      number,
      title: `Issue ${number}`,
      state: number === 2 ? "closed" : "open",
      body: `Body of issue ${number}`,
      url: `https://tracker.example.com/${number}`,
      updatedAt: "2026-01-02T10:00:00Z",
    }));
    await env.call("issues", "issues.poll", "clock");

    let ordered: { issue: string; work: string }[] = [];
    await t.step("the sweep orders work for the open issues only", async () => {
      ({ ordered } = await env.call("triage", "triage.sweep", "clock") as {
        ordered: { issue: string; work: string }[];
      });
      assert.deepEqual(ordered.map((o) => o.issue), ["issues.issue/1", "issues.issue/3"]);
    });

    await t.step("each order is written down with the handler as its source", async () => {
      const memory = await env.host.projectMemory(env.project);
      const order = await readWorkOrder(memory, ordered[0].work);
      assert.ok(order);
      assert.deepEqual(
        {
          kind: order.kind,
          agent: order.agent,
          title: order.title,
          onInterrupted: order.onInterrupted,
          about: order.about,
          // When the call began is the host's clock's: it is checked as a time.
          source: { ...order.source, calledAt: undefined },
          extensionId: order.extensionId,
          state: order.state,
        },
        {
          kind: "agent.session",
          agent: "demo",
          title: "Triage issue 1: Issue 1",
          onInterrupted: "continue",
          about: "issues.issue/1",
          source: {
            kind: "handler",
            extensionId: "triage",
            extensionName: "Triage",
            handler: "triage.sweep",
            occasion: { kind: "clock" },
            calledBy: { kind: "clock" },
            calledAt: undefined,
            description: "Orders an agent session to triage new open issues",
          },
          extensionId: "triage",
          state: "ordered",
        },
      );
      const calledAt = order.source.kind === "handler" ? order.source.calledAt ?? "" : "";
      assert.ok(!Number.isNaN(Date.parse(calledAt)) && calledAt <= order.orderedAt, calledAt);
      assert.match(order.prompt.text, /Body of issue 1$/);
    });

    await t.step("it remembers what it ordered in its own records", async () => {
      assert.deepEqual(
        (await env.records("triage.ordered")).map((r) => [r.key, r.fields]),
        ordered.map((o) => [
          `triage.ordered/${o.issue.slice("issues.issue/".length)}`,
          { issue: o.issue, work: o.work },
        ]),
      );
    });

    await t.step("a second sweep orders nothing", async () => {
      assert.deepEqual(await env.call("triage", "triage.sweep", "clock"), { ordered: [] });
    });
  } finally {
    await env.close();
    await tracker.close();
  }
});

Deno.test("extensions/decisions publishes a type other packages may then read", async (t) => {
  const env = await exampleHost();
  try {
    const reader = await writePackage(env.root, {
      id: "reader",
      handlers: ["reader.decisions"],
      service: `import { memory } from "@sync/extension-api/service";
export default function register() {
  return {
    "reader.decisions": async () =>
      (await memory.list({ kind: "decisions.decision" })).records.map((r) => r.title),
  };
}`,
    });
    await env.install(reader);
    await writeRecord(await env.host.projectMemory(env.project), {
      key: "decisions.decision/kv-in-project",
      title: "Keep project memory inside the project",
      fields: { status: "accepted", decidedAt: "2026-01-02" },
      content: "So it travels with the repository.",
    }, { by: "person" });

    await t.step("before it is installed, the kind is nobody's to read", async () => {
      await assert.rejects(
        () => env.call("reader", "reader.decisions", "extension"),
        /reader cannot read kind decisions\.decision/,
      );
    });

    await t.step("it has nothing to build and installs with no permissions", async () => {
      assert.deepEqual(await buildPackage(join(EXTENSIONS, "decisions")), { outputs: [] });
      const { approved, package: pkg } = await env.install(join(EXTENSIONS, "decisions"));
      assert.deepEqual(approved, []);
      assert.deepEqual(pkg.manifest.handlers, {});
      assert.equal(pkg.manifest.service, undefined);
    });

    await t.step("installed, its published kind is readable by another package", async () => {
      assert.deepEqual(await env.call("reader", "reader.decisions", "extension"), [
        "Keep project memory inside the project",
      ]);
    });
  } finally {
    await env.close();
  }
});
