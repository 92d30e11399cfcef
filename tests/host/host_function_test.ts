import assert from "node:assert/strict";
import { InvalidInputError, NotFoundError, PermissionDeniedError } from "../../runtime/errors.ts";
import { type HostFunction, runHostFunction } from "../../runtime/host/host_function.ts";
import { memory } from "../../runtime/host/functions/memory.ts";
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
        reach: "reads",
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

Deno.test("`runHostFunction()` refuses what the call withholds, after the permission, before the argument", async (t) => {
  const without = await functionContext({ id: "plain", permissions: ["background"] });
  const with_ = await functionContext({ id: "agent", permissions: ["background", "work.agent"] });
  const withheld = { "work.order": () => new NotFoundError("this call orders no work") };
  try {
    await t.step("a package without the permission is told about the permission", async () => {
      await assert.rejects(
        runHostFunction(work.order, { not: "an order" }, { ...without.context, withheld }),
        PermissionDeniedError,
      );
    });

    await t.step("with it, the call's refusal comes before the argument's shape", async () => {
      await assert.rejects(
        runHostFunction(work.order, { not: "an order" }, { ...with_.context, withheld }),
        (error: Error) => {
          assert.ok(error instanceof NotFoundError);
          assert.equal(error.message, "this call orders no work");
          return true;
        },
      );
      assert.deepEqual(with_.context.orders, []);
    });

    await t.step("functions it does not withhold run", async () => {
      assert.equal(
        await runHostFunction(memory.record, "agent.note/1", { ...with_.context, withheld }),
        null,
      );
    });
  } finally {
    await without.close();
    await with_.close();
  }
});
