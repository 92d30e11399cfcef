import assert from "node:assert/strict";
import { RECORD_LIMITS } from "../../runtime/limits.ts";
import { testHost } from "../internal/packages.ts";

// Records with fields near their limit: fifty of them are more JSON than one host call may answer.
const FILLER = `import { memory } from "@sync/extension-api/service";
export default function register() {
  return {
    "bulk.fill": async ({ from }) => {
      for (let i = from; i < from + 20; i++) {
        await memory.write({
          key: "bulk.item/" + String(i).padStart(3, "0"),
          title: "item " + i,
          fields: { text: "x".repeat(32_000) },
        });
      }
    },
    "bulk.readAll": async ({ limit }) => {
      const pages = [];
      let cursor;
      do {
        const page = await memory.list({
          kind: "bulk.item",
          ...(limit ? { limit } : {}),
          ...(cursor ? { cursor } : {}),
        });
        pages.push(page.records.length);
        cursor = page.cursor;
      } while (cursor);
      return pages;
    },
  };
}`;

Deno.test(
  "a `memory.list` page ends by size as well as by count, so records with large fields never make a listing fail",
  async (t) => {
    const env = await testHost();
    try {
      await env.install({ id: "bulk", handlers: ["bulk.fill", "bulk.readAll"], service: FILLER });
      for (const from of [0, 20, 40]) await env.call("bulk", "bulk.fill", { from });

      for (const limit of [undefined, 50, RECORD_LIMITS.maxListLimit]) {
        await t.step(
          `with limit ${limit ?? "left out"}, every record is read, page by page`,
          async () => {
            const pages = await env.call(
              "bulk",
              "bulk.readAll",
              limit ? { limit } : {},
            ) as number[];
            assert.equal(pages.reduce((a, b) => a + b, 0), 60, `pages: ${pages}`);
            assert.ok(pages.length > 1, `pages: ${pages}`);
            assert.ok(pages.every((n) => n >= 1), `pages: ${pages}`);
          },
        );
      }
    } finally {
      await env.close();
    }
  },
);
