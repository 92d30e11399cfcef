import assert from "node:assert/strict";
import { InvalidInputError, PermissionDeniedError } from "../../runtime/errors.ts";
import { type HostFunction, runHostFunction } from "../../runtime/host/host_function.ts";
import { work } from "../../runtime/host/functions/work.ts";
import { functionContext } from "../internal/host_functions.ts";

Deno.test("`runHostFunction()` checks the declared permission, then the argument, then runs", async (t) => {
  const without = await functionContext({ id: "plain", permissions: ["background"] });
  const with_ = await functionContext({ id: "agent", permissions: ["background", "work.agent"] });
  try {
    await t.step(
      "a package without the permission is refused before its argument is read",
      async () => {
        await assert.rejects(
          runHostFunction(work.order, { not: "an order" }, without.context),
          (error: Error) => {
            assert.ok(error instanceof PermissionDeniedError);
            assert.equal(
              error.message,
              "work.order() needs the work.agent permission, which plain does not declare",
            );
            return true;
          },
        );
        assert.deepEqual(without.context.orders, []);
      },
    );

    await t.step("with the permission, a malformed argument is refused by its shape", async () => {
      await assert.rejects(
        runHostFunction(work.order, { not: "an order" }, with_.context),
        InvalidInputError,
      );
      assert.deepEqual(with_.context.orders, []);
    });

    await t.step("a function declaring no permission runs for any package", async () => {
      const seen: unknown[] = [];
      const echo: HostFunction<string> = {
        name: "memory.record",
        permission: null,
        parse: (args) => String(args),
        run: (arg) => {
          seen.push(arg);
          return Promise.resolve({ echoed: arg });
        },
      };
      assert.deepEqual(await runHostFunction(echo, 42, without.context), { echoed: "42" });
      assert.deepEqual(seen, ["42"], "run gets what parse answered");
    });
  } finally {
    await without.close();
    await with_.close();
  }
});
