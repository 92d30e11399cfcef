import assert from "node:assert/strict";
import { begunBy } from "../../runtime/agents/mod.ts";
import type { Occasion } from "../../runtime/extension_api/service.ts";

const AT = "2030-01-01T09:00:00.000Z";

function ordered(occasion: Occasion) {
  return {
    createdAt: AT,
    source: {
      kind: "handler" as const,
      extensionId: "mail",
      extensionName: "Mail",
      handler: "mail.sync",
      occasion,
      calledBy: { kind: "clock" as const },
      calledAt: AT,
    },
  };
}

Deno.test("`begunBy()` names a device's task step as its occasion", async (t) => {
  const when = (at: Date) => at.toISOString();
  await t.step("with the task's name", () => {
    const occasion: Occasion = {
      kind: "task",
      task: { name: "sync", attempt: "a1", step: 2, trigger: "schedule" },
    };
    assert.equal(
      begunBy(ordered(occasion), { when }),
      `Begun by the Mail sync in its device's sync task at ${AT}`,
    );
  });
  await t.step("without one, when the occasion does not say", () => {
    assert.equal(
      begunBy(ordered({ kind: "task" }), { when }),
      `Begun by the Mail sync in its device's task at ${AT}`,
    );
  });
});
