import assert from "node:assert/strict";
import { type CommandRequest, commandRoutes } from "../../../runtime/web/api/commands.ts";

const TOKEN = "s1".repeat(24);
const HEADERS = { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" };

Deno.test("`commandRoutes()` carries a command's secret beside its words", async (t) => {
  const seen: CommandRequest[] = [];
  const routes = commandRoutes(TOKEN, (request) => {
    seen.push(request);
    return Promise.resolve(0);
  });
  const post = (body: unknown) =>
    routes.request("http://127.0.0.1/commands", {
      method: "POST",
      headers: HEADERS,
      body: JSON.stringify(body),
    });

  await t.step("a string secret reaches the command, not among its words", async () => {
    const response = await post({ args: ["devices", "connect", "mail"], cwd: "/", secret: "tok" });
    assert.equal(response.status, 200);
    await response.text();
    assert.deepEqual(seen.at(-1), {
      args: ["devices", "connect", "mail"],
      cwd: "/",
      secret: "tok",
    });
  });

  await t.step("no secret: the request is as before", async () => {
    await (await post({ args: ["list"], cwd: "/" })).text();
    assert.deepEqual(seen.at(-1), { args: ["list"], cwd: "/" });
  });

  await t.step("a secret that is not a string is refused with 400", async () => {
    const response = await post({ args: ["list"], cwd: "/", secret: 42 });
    assert.equal(response.status, 400);
    assert.match((await response.json()).error, /"secret" must be a string/);
  });
});
