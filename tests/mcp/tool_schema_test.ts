import assert from "node:assert/strict";
import { toolSchema } from "../../runtime/mcp/tool_schema.ts";

Deno.test("`toolSchema()` compiles a schema once, and checks with it every time", async (t) => {
  const schema = {
    type: "object",
    properties: { name: { type: "string", pattern: "^[a-z]+$" } },
    required: ["name"],
  };

  await t.step("the same JSON Schema gives the same compiled schema", () => {
    const first = toolSchema(schema);
    assert.equal(toolSchema(structuredClone(schema)), first);
  });

  await t.step("another JSON Schema gives another", () => {
    const other = { ...schema, required: [] };
    assert.notEqual(toolSchema(other), toolSchema(schema));
  });

  await t.step("a kept schema still checks, and lists what the caller gave", () => {
    const given = structuredClone(schema);
    const checked = toolSchema(given);
    given.required.push("changed after");
    assert.equal(checked.safeParse({ name: "ada" }).success, true);
    assert.equal(checked.safeParse({ name: "Ada!" }).success, false);
    assert.equal(checked.safeParse({}).success, false);
    assert.deepEqual(checked._zod.toJSONSchema?.(), schema);
  });
});
