import assert from "node:assert/strict";
import { readProjectOffer } from "../../runtime/mcp/project_offer.ts";
import { testHost } from "../internal/packages.ts";

const TOOL = { description: "A tool", input: { type: "object", properties: {} } };

Deno.test("readProjectOffer() offers no installed or removed handler as a tool", async () => {
  const env = await testHost();
  try {
    await env.install({
      id: "setter",
      handlers: ["setter.setup", "setter.teardown", "setter.look"],
      service: `export default function register() {
  return { "setter.setup": () => 1, "setter.teardown": () => 2, "setter.look": () => 3 };
}`,
      manifest: {
        handlers: {
          "setter.setup": { description: "Sets up", agent: TOOL },
          "setter.teardown": { description: "Takes down", agent: TOOL },
          "setter.look": { description: "Looks", agent: TOOL },
        },
        lifecycle: { installed: "setter.setup", removed: "setter.teardown" },
      },
    });
    const lines: string[] = [];
    const offer = await readProjectOffer(env.kv, env.project, (line) => lines.push(line));
    assert.deepEqual([...offer.tools.values()].map((tool) => tool.handler), ["setter.look"]);
    assert.deepEqual(lines, [
      "[mcp] setter.setup of setter is not offered as a tool: " +
      "Sync runs setter.setup when Setter is installed; it is not run by hand",
      "[mcp] setter.teardown of setter is not offered as a tool: " +
      "Sync runs setter.teardown when Setter is removed; it is not run by hand",
    ]);
  } finally {
    await env.close();
  }
});
