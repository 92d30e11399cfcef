import assert from "node:assert/strict";
import { InvalidInputError } from "../../runtime/errors.ts";
import { findHostFunction, HOST_FUNCTION_TABLE } from "../../runtime/host/function_table.ts";
import { HOST_FUNCTIONS, type HostFunctionName } from "../../runtime/isolate/protocol.ts";

Deno.test("`HOST_FUNCTION_TABLE` holds every host function the isolate offers", async (t) => {
  await t.step("its names are HOST_FUNCTIONS, in the same order", () => {
    assert.deepEqual(HOST_FUNCTION_TABLE.map((fn) => fn.name), [...HOST_FUNCTIONS]);
  });

  await t.step("each entry declares the permission it needs", () => {
    assert.deepEqual(
      Object.fromEntries(HOST_FUNCTION_TABLE.map((fn) => [fn.name, fn.permission])),
      {
        "memory.list": null,
        "memory.record": null,
        "memory.content": null,
        "memory.write": null,
        "memory.remove": null,
        "work.order": "work.agent",
        "work.state": "work.agent",
        // Which net:<host> it needs depends on the URL; netFetch checks it per request.
        "net.fetch": null,
        "account.list": "account.folder",
        "account.read": "account.folder",
        "account.parseMail": "account.folder",
        "account.parseCalendar": "account.folder",
        "account.fetch": "account.remote",
      },
    );
  });
});

Deno.test("`findHostFunction()` answers the table's entry by name", async (t) => {
  await t.step("every name finds its own entry", () => {
    for (const name of HOST_FUNCTIONS) assert.equal(findHostFunction(name).name, name);
  });

  await t.step("a name the table does not hold is refused by name", () => {
    assert.throws(
      () => findHostFunction("process.spawn" as HostFunctionName),
      (error: Error) => {
        assert.ok(error instanceof InvalidInputError);
        assert.equal(error.message, "process.spawn is not a function the host offers");
        return true;
      },
    );
  });
});
