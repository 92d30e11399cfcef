import assert from "node:assert/strict";
import { assertSwitchable } from "../../runtime/clock/assert_switchable.ts";
import { InvalidInputError, NotFoundError } from "../../runtime/errors.ts";
import { testHost } from "../internal/packages.ts";

/** A service module whose one handler does nothing. */
function service(handler: string): string {
  return `export default function register() {\n  return { "${handler}": () => null };\n}\n`;
}

Deno.test("`assertSwitchable()` lets a clock be switched only where there is one", async (t) => {
  const env = await testHost();
  try {
    await env.install({
      id: "ticker",
      permissions: ["background", "schedule"],
      handlers: ["ticker.run"],
      service: service("ticker.run"),
      manifest: { schedule: [{ handler: "ticker.run", description: "Ticks", every: "1h" }] },
    });
    await env.install({ id: "plain", handlers: ["plain.run"], service: service("plain.run") });

    await t.step("an installed package with a schedule passes", async () => {
      await assertSwitchable(env.kv, env.project, "ticker");
    });

    await t.step("a package without a schedule is refused: there is no clock", async () => {
      await assert.rejects(
        assertSwitchable(env.kv, env.project, "plain"),
        (error) =>
          error instanceof InvalidInputError &&
          error.message === "plain has no schedule, so there is no clock to switch",
      );
    });

    await t.step("a package not installed in the project is not found", async () => {
      await assert.rejects(
        assertSwitchable(env.kv, env.project, "absent"),
        (error) =>
          error instanceof NotFoundError &&
          error.message === `absent is not installed in ${env.project}`,
      );
    });
  } finally {
    await env.close();
  }
});
