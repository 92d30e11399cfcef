import assert from "node:assert/strict";
import { IsolatePool } from "../../runtime/isolate/pool.ts";
import type { HostFunctionName } from "../../runtime/isolate/protocol.ts";

const SERVICE = `
import { account } from "@sync/extension-api/service";
export default function register() {
  return {
    "mail.read": async () => ({
      list: await account.list({ under: "cur", recursive: true }),
      read: await account.read("cur/one"),
      mail: await account.parseMail(["cur/one", "cur/two"]),
      calendar: await account.parseCalendar(["a.ics"], { from: "2027-03-01T00:00:00Z", days: 7 }),
      fetch: await account.fetch("/items"),
      frozen: Object.isFrozen(account),
    }),
  };
}`;

Deno.test("`account` in the service module reaches the account.* host functions", async (t) => {
  const pool = new IsolatePool({ size: 1 });
  const asked: [HostFunctionName, unknown][] = [];
  try {
    const answer = await pool.call({
      source: SERVICE,
      sourceName: "mail/service/index.js",
      packageId: "mail",
      handler: "mail.read",
      payload: null,
      occasion: { kind: "extension" },
    }, {
      host: (fn, args) => {
        asked.push([fn, args]);
        return Promise.resolve(`${fn} answered`);
      },
    }) as Record<string, unknown>;

    await t.step("each function by its name, with its argument as the handler gave it", () => {
      assert.deepEqual(asked.slice(0, 3), [
        ["account.list", { under: "cur", recursive: true }],
        ["account.read", "cur/one"],
        ["account.parseMail", ["cur/one", "cur/two"]],
      ]);
      assert.deepEqual(asked[4], ["account.fetch", "/items"]);
    });

    await t.step("parseCalendar's two arguments cross as one array, in order", () => {
      assert.deepEqual(asked[3], [
        "account.parseCalendar",
        [["a.ics"], { from: "2027-03-01T00:00:00Z", days: 7 }],
      ]);
    });

    await t.step("the answers come back, and the object is frozen", () => {
      assert.equal(answer.calendar, "account.parseCalendar answered");
      assert.equal(answer.frozen, true);
    });
  } finally {
    pool.close();
  }
});
