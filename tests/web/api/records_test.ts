import assert from "node:assert/strict";
import { join } from "node:path";
import { createApp } from "../../../runtime/web/app.ts";
import type { ErrorResponse } from "../../../runtime/web/api/types.ts";
import type {
  RecordKindsResponse,
  RecordListResponse,
  RecordResponse,
} from "../../../runtime/web/api/records_types.ts";
import { writeRecord } from "../../../runtime/memory/mod.ts";
import { testHost } from "../../internal/packages.ts";

const TOKEN = "t".repeat(48);
const ORIGIN = "http://127.0.0.1:4321";
const HOSTILE = "<img src=x onerror=alert(1)>";

const NOTES = {
  id: "notes",
  handlers: ["notes.write"],
  service: `import { memory } from "@sync/extension-api/service";
export default function register() {
  return {
    "notes.write": async () => {
      await memory.write({ key: "notes.note/first", title: "Printer jam", fields: { owner: "Ada" },
        content: ${JSON.stringify(HOSTILE)} });
      await memory.write({ key: "notes.note/second/part", title: "Coffee" });
      await memory.write({ key: "notes.todo/1", title: "Buy paper" });
      return null;
    },
  };
}`,
};

Deno.test("the Records API lists kinds, searches and reads a record with its receipts", async (t) => {
  const env = await testHost();
  const app = createApp(env.host, { token: TOKEN, port: 4321 });
  const get = (path: string, token = TOKEN) =>
    app.request(`${ORIGIN}${path}`, { headers: { cookie: `sync_token_4321=${token}` } });
  const q = `project=${encodeURIComponent(env.project)}`;
  const refused = async (response: Response, status: number, message: RegExp) => {
    const body = await response.json() as ErrorResponse;
    assert.equal(response.status, status, body.error);
    assert.match(body.error, message);
  };
  try {
    await t.step("a project with no memory answers no records, and is given none", async () => {
      const kinds = await (await get(`/api/records/kinds?${q}`)).json() as RecordKindsResponse;
      assert.deepEqual(kinds.kinds, []);
      const list = await (await get(`/api/records?${q}`)).json() as RecordListResponse;
      assert.deepEqual(list.records, []);
      await assert.rejects(
        Deno.lstat(join(env.project, ".sync", "memory.kv")),
        Deno.errors.NotFound,
      );
    });

    await env.install(NOTES);
    await env.call("notes", "notes.write");
    await writeRecord(await env.host.projectMemory(env.project), {
      key: "notes.note/first",
      title: "Printer jam (edited)",
    });

    await t.step("GET /api/records/kinds counts each kind", async () => {
      const body = await (await get(`/api/records/kinds?${q}`)).json() as RecordKindsResponse;
      assert.deepEqual(body.kinds, [
        { kind: "notes.note", count: 2, more: false },
        { kind: "notes.todo", count: 1, more: false },
      ]);
    });

    await t.step("GET /api/records searches, filters by kind and pages", async () => {
      const found = await (await get(`/api/records?${q}&q=printer`)).json() as RecordListResponse;
      assert.deepEqual(found.records.map((r) => r.key), ["notes.note/first"]);
      const byField = await (await get(`/api/records?${q}&q=ADA&kind=notes.note`))
        .json() as RecordListResponse;
      assert.deepEqual(byField.records.map((r) => r.key), ["notes.note/first"]);
      const todo = await (await get(`/api/records?${q}&kind=notes.todo`))
        .json() as RecordListResponse;
      assert.deepEqual(todo.records.map((r) => r.key), ["notes.todo/1"]);
      const first = await (await get(`/api/records?${q}&limit=2`)).json() as RecordListResponse;
      assert.equal(first.records.length, 2);
      assert.ok(first.cursor);
      const next = await (await get(
        `/api/records?${q}&limit=2&cursor=${encodeURIComponent(first.cursor)}`,
      )).json() as RecordListResponse;
      assert.deepEqual(next.records.map((r) => r.key), ["notes.todo/1"]);
      assert.equal(next.cursor, undefined);
    });

    await t.step(
      "GET /api/records/one reads it whole, with the receipts that wrote it",
      async () => {
        const response = await get(`/api/records/one?${q}&kind=notes.note&name=first`);
        const body = await response.json() as RecordResponse;
        assert.equal(response.status, 200);
        assert.equal(body.record.title, "Printer jam (edited)");
        assert.equal(body.record.revision, 2);
        assert.equal(body.content, HOSTILE);
        assert.equal(body.writers.length, 2);
        assert.equal(body.writers[0].by, "person");
        assert.equal(body.writers[0].receipt, null);
        assert.equal(body.writers[1].by, "notes");
        assert.equal(body.writers[1].revision, 1);
        assert.equal(body.writers[1].receipt?.handler, "notes.write");
        assert.equal(body.writers[1].receipt?.outcome, "ok");
        // Who asked for the call comes with it, so the page says it as the receipts do.
        assert.deepEqual(body.writers[1].receipt?.source, { kind: "person" });
        assert.equal(body.writers[1].receipt?.id, body.writers[1].receiptId);
        const slashed = await get(`/api/records/one?${q}&kind=notes.note&name=second%2Fpart`);
        assert.equal(((await slashed.json()) as RecordResponse).record.title, "Coffee");
      },
    );

    await t.step("hostile query values are refused with words", async () => {
      await refused(
        await get(`/api/records?${q}&q=${"x".repeat(100_000)}`),
        400,
        /at most 200 characters/,
      );
      await refused(await get(`/api/records?${q}&cursor=%00garbage`), 400, /cannot go on/);
      await refused(
        await get(`/api/records?${q}&kind=notes.nothing`),
        404,
        /no records of kind "notes.nothing"; the kinds it holds are notes.note, notes.todo/,
      );
      await refused(
        await get(`/api/records?${q}&kind=${encodeURIComponent(HOSTILE)}`),
        400,
        /kind/,
      );
      await refused(
        await get(`/api/records?${q}&kind=evil.${"k".repeat(3000)}`),
        400,
        /3005 characters, at most 298 allowed/,
      );
      await refused(await get(`/api/records?${q}&limit=100000`), 400, /limit/);
      await refused(await get(`/api/records?${q}&limit=-1`), 400, /limit/);
      await refused(await get(`/api/records/one?${q}&kind=notes.note`), 400, /name: required/);
      await refused(
        await get(`/api/records/one?${q}&kind=notes.note&name=gone`),
        404,
        /no record "notes.note\/gone"/,
      );
      await refused(await get(`/api/records/one?${q}&kind=..&name=x`), 400, /kind/);
      await refused(await get(`/api/records/kinds?project=relative/path`), 400, /project/);
    });

    await t.step("the routes want the installation's token", async () => {
      assert.equal((await get(`/api/records/kinds?${q}`, "wrong".repeat(10))).status, 401);
      assert.equal((await get(`/api/records?${q}`, "wrong".repeat(10))).status, 401);
      assert.equal(
        (await get(`/api/records/one?${q}&kind=notes.note&name=first`, "x")).status,
        401,
      );
    });
  } finally {
    await env.close();
  }
});
