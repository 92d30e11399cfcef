import assert from "node:assert/strict";
import { newId } from "../../../runtime/internal/id.ts";
import { writeReceipt } from "../../../runtime/host/mod.ts";
import type { Receipt } from "../../../runtime/types.ts";
import type { OccasionKind } from "../../../runtime/extension_api/service.ts";
import type { ProjectReceiptsResponse } from "../../../runtime/web/api/receipts_types.ts";
import { createApp } from "../../../runtime/web/app.ts";
import { testHost } from "../../internal/packages.ts";

const TOKEN = "t".repeat(48);
const COOKIE = `sync_token_4321=${TOKEN}`;

Deno.test("GET /api/receipts answers the project's newest receipts that match", async (t) => {
  const env = await testHost();
  const app = createApp(env.host, { token: TOKEN, port: 4321 });
  const get = (query: string, headers: HeadersInit = { cookie: COOKIE }) =>
    app.request(`http://127.0.0.1:4321/api/receipts?${query}`, { headers });
  const project = `project=${encodeURIComponent(env.project)}`;
  const start = Date.parse("2026-01-01T00:00:00Z");
  let minute = 0;
  const write = async (
    packageId: string,
    kind: OccasionKind,
    outcome: Receipt["outcome"],
  ): Promise<Receipt> => {
    const at = new Date(start + 60_000 * minute++).toISOString();
    const receipt: Receipt = {
      id: newId(Date.parse(at)),
      project: env.project,
      packageId,
      handler: `${packageId}.run`,
      occasion: { kind },
      startedAt: at,
      endedAt: at,
      outcome,
      ...(outcome === "failed" ? { error: { name: "Error", message: "the disk is full" } } : {}),
    };
    await writeReceipt(env.kv, receipt);
    return receipt;
  };
  try {
    const clockFailed = await write("sweeper", "clock", "failed");
    await write("sweeper", "clock", "ok");
    const ownFailed = await write("tracker", "extension", "failed");
    const agentFailed = await write("tracker", "agent", "failed");
    const openedFailed = await write("door", "lifecycle", "failed");
    const background = `${project}&outcome=failed&occasion=clock,agent,lifecycle`;

    await t.step("failed background calls, newest first, without the person's own", async () => {
      const response = await get(background);
      assert.equal(response.status, 200);
      const body: ProjectReceiptsResponse = await response.json();
      assert.deepEqual(body.receipts.map((r) => r.id), [
        openedFailed.id,
        agentFailed.id,
        clockFailed.id,
      ]);
      assert.equal(body.more, 0);
      assert.equal(body.partial, false);
      assert.equal(body.project, env.project);
    });

    await t.step("limit answers the newest and counts the rest as more", async () => {
      const body: ProjectReceiptsResponse = await (await get(`${background}&limit=1`)).json();
      assert.deepEqual(body.receipts.map((r) => r.id), [openedFailed.id]);
      assert.equal(body.more, 2);
    });

    await t.step("after answers only receipts newer than the one named", async () => {
      const body: ProjectReceiptsResponse = await (await get(
        `${background}&after=${encodeURIComponent(agentFailed.id)}`,
      )).json();
      assert.deepEqual(body.receipts.map((r) => r.id), [openedFailed.id]);
      const none: ProjectReceiptsResponse = await (await get(
        `${background}&after=${encodeURIComponent(openedFailed.id)}`,
      )).json();
      assert.deepEqual(none.receipts, []);
      assert.equal(none.more, 0);
    });

    await t.step("id narrows to one package's receipts", async () => {
      const body: ProjectReceiptsResponse = await (await get(
        `${project}&id=tracker&outcome=failed&after=${encodeURIComponent(clockFailed.id)}`,
      )).json();
      assert.deepEqual(body.receipts.map((r) => r.id), [agentFailed.id, ownFailed.id]);
    });

    await t.step("a bad parameter is a 400 that names it, in words", async () => {
      const cases: [string, RegExp][] = [
        [`${project}&outcome=broken`, /^outcome: expected one of ok, failed/],
        [`${project}&occasion=clock,person`, /^occasion: expected occasions from .* got "person"/],
        [`${project}&occasion=`, /^occasion: /],
        [`${project}&after=..%2F..`, /^after: expected a receipt's id/],
        [`${project}&after=${"a".repeat(3000)}`, /^after: /],
        [`${project}&limit=0`, /^limit: expected a whole number from 1 to 500/],
        [`${project}&limit=501`, /^limit: /],
        [`${project}&id=Not%20An%20Id`, /^id: /],
        ["outcome=failed", /^project: /],
      ];
      for (const [query, error] of cases) {
        const response = await get(query);
        assert.equal(response.status, 400, query.slice(0, 80));
        const body = await response.json();
        assert.match(body.error, error);
        assert.ok(!/^[A-Z]\w*Error/.test(body.error), body.error);
      }
    });

    await t.step("a request without the installation's token is refused", async () => {
      const response = await get(background, {});
      assert.equal(response.status, 401);
      const wrong = await get(background, { cookie: `sync_token_4321=${"u".repeat(48)}` });
      assert.equal(wrong.status, 401);
      const bearer = await get(background, { authorization: `Bearer ${TOKEN}` });
      assert.equal(bearer.status, 200);
    });
  } finally {
    await env.close();
  }
});
