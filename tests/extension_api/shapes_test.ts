import assert from "node:assert/strict";
import type { z } from "zod";
import type * as api from "../../runtime/extension_api/service.ts";
import { netFetch } from "../../runtime/host/functions/net_fetch.ts";
import { MemoryTransaction } from "../../runtime/memory/transaction.ts";
import { parseWorkOrder, type WorkOrder, workOrderInputSchema } from "../../runtime/work/order.ts";

// The extension API is the one definition of what a handler sends and gets;
// the host validates and answers with its own code. The assertions below
// type-check only while what the host validates and answers still fits the
// API's shapes, so `deno check` (and so `deno test`) fails the moment one
// drifts.

/** `true` when `Runtime` is assignable to `Api`; otherwise `never`, and assigning `true` fails. */
type AssertAssignable<Runtime, Api> = [Runtime] extends [Api] ? true : never;

type Answer<F extends (...args: never[]) => unknown> = Awaited<ReturnType<F>>;
type Transaction = MemoryTransaction;

// What a handler sends: every order the API lets it write is one the schema's
// input type takes, and what the schema lets through is an API order.
const _orderSent: AssertAssignable<api.WorkOrderInput, z.input<typeof workOrderInputSchema>> = true;
const _orderValidated: AssertAssignable<z.output<typeof workOrderInputSchema>, api.WorkOrderInput> =
  true;
const _orderParsed: AssertAssignable<ReturnType<typeof parseWorkOrder>, api.WorkOrderInput> = true;
const _querySent: AssertAssignable<api.RecordQuery, Parameters<Transaction["list"]>[0]> = true;
const _inputSent: AssertAssignable<api.RecordInput, Parameters<Transaction["write"]>[0]> = true;

// What a handler gets: memory's answers, work's answers (built from the order
// as written down) and net's answer.
const _listed: AssertAssignable<Answer<Transaction["list"]>, api.RecordPage> = true;
const _record: AssertAssignable<Answer<Transaction["record"]>, api.RecordSummary | null> = true;
const _content: AssertAssignable<Answer<Transaction["content"]>, string | null> = true;
const _written: AssertAssignable<Answer<Transaction["write"]>, api.WriteResult> = true;
const _removed: AssertAssignable<Answer<Transaction["remove"]>, api.RemoveResult> = true;
const _ordered: AssertAssignable<Pick<WorkOrder, "key">, api.WorkOrdered> = true;
const _state: AssertAssignable<
  Pick<WorkOrder, "key" | "state" | "title" | "orderedAt">,
  api.WorkState
> = true;
const _fetched: AssertAssignable<Answer<typeof netFetch>, api.NetResponse> = true;

// The check bites: a shape that does not fit fails to type-check.
// @ts-expect-error `revision` as a string is not the API's WriteResult.
const _misfit: AssertAssignable<{ key: string; revision: string }, api.WriteResult> = true;

/** The names each answer has: exactly the API's, `satisfies` refusing a missing or extra one. */
const SUMMARY_FIELDS = Object.keys(
  {
    key: true,
    kind: true,
    title: true,
    fields: true,
    revision: true,
    updatedAt: true,
    updatedBy: true,
  } satisfies Record<keyof api.RecordSummary, true>,
).sort();
const WRITE_FIELDS = Object.keys(
  { key: true, revision: true } satisfies Record<keyof api.WriteResult, true>,
).sort();
const REMOVE_FIELDS = Object.keys(
  { key: true, removed: true } satisfies Record<keyof api.RemoveResult, true>,
).sort();
const RESPONSE_FIELDS = Object.keys(
  { status: true, headers: true, body: true } satisfies Record<keyof api.NetResponse, true>,
).sort();

function fieldsOf(value: unknown): string[] {
  return Object.keys(value as object).sort();
}

Deno.test("`workOrderInputSchema` takes every order the API describes, unchanged", async (t) => {
  await t.step("an order with every field comes back as it went in", () => {
    const order: api.WorkOrderInput = {
      kind: "agent.session",
      agent: "claude-code",
      title: "Triage issue 142",
      prompt: { text: "Read issue 142 and propose a fix.", attachments: ["/tmp/notes.md"] },
      onInterrupted: "wait",
      about: "issues.issue/142",
    };
    assert.deepEqual(parseWorkOrder(structuredClone(order)), order);
  });

  await t.step("an order with only what is required comes back as it went in", () => {
    const order: api.WorkOrderInput = {
      kind: "agent.session",
      agent: "demo",
      title: "Say hello",
      prompt: { text: "Hello" },
      onInterrupted: "continue",
    };
    assert.deepEqual(parseWorkOrder(structuredClone(order)), order);
  });
});

Deno.test("`MemoryTransaction` answers a handler with exactly the API's fields", async (t) => {
  using kv = await Deno.openKv(":memory:");
  const transaction = new MemoryTransaction(kv, {
    packageId: "issues",
    generation: { value: 0, versionstamp: null },
    now: () => new Date("2025-03-01T09:00:00.000Z"),
  });

  await t.step("write() answers a WriteResult", async () => {
    const input: api.RecordInput = {
      key: "issues.issue/1",
      title: "Crash on save",
      fields: { state: "open" },
      content: "It crashes.",
    };
    assert.deepEqual(fieldsOf(await transaction.write(input)), WRITE_FIELDS);
  });

  await t.step(
    "record() and list() answer RecordSummary, without what is stored beside it",
    async () => {
      assert.deepEqual(fieldsOf(await transaction.record("issues.issue/1")), SUMMARY_FIELDS);
      const query: api.RecordQuery = { kind: "issues.issue", limit: 1 };
      const page = await transaction.list(query);
      assert.deepEqual(Object.keys(page), ["records"]);
      assert.deepEqual(page.records.map(fieldsOf), [SUMMARY_FIELDS]);
    },
  );

  await t.step("remove() answers a RemoveResult", async () => {
    assert.deepEqual(fieldsOf(await transaction.remove("issues.issue/1")), REMOVE_FIELDS);
  });

  await t.step("a committed record reads back with the same fields", async () => {
    await transaction.write({ key: "issues.issue/2", title: "Kept" });
    await transaction.commit();
    const later = new MemoryTransaction(kv, {
      packageId: "issues",
      generation: { value: 0, versionstamp: null },
    });
    assert.deepEqual(fieldsOf(await later.record("issues.issue/2")), SUMMARY_FIELDS);
    later.discard();
  });
});

Deno.test("`netFetch()` answers a handler with exactly the API's NetResponse", async () => {
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    () => new Response("hello", { headers: { "X-Answer": "42" } }),
  );
  try {
    const { port } = server.addr;
    const request: api.NetRequest = {
      url: `http://127.0.0.1:${port}/`,
      method: "GET",
      headers: { accept: "text/plain" },
    };
    const response = await netFetch(request, {
      packageId: "probe",
      hosts: [`127.0.0.1:${port}`],
      timeoutMs: 5_000,
      maxBytes: 1024,
      maxHeaderBytes: 4096,
    });
    assert.deepEqual(fieldsOf(response), RESPONSE_FIELDS);
    assert.equal(response.status, 200);
    assert.equal(response.body, "hello");
    assert.equal(response.headers["x-answer"], "42");
    assert.ok(Object.values(response.headers).every((value) => typeof value === "string"));
  } finally {
    await server.shutdown();
  }
});
