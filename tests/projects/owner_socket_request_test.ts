import assert from "node:assert/strict";

Deno.test("`ownerSocketClient()` requests over the owner's socket and streams the answers", async () => {
  // Its steps listen on a Unix socket: they run in a process allowed to.
  const output = await new Deno.Command(Deno.execPath(), {
    args: [
      "test",
      "--allow-read",
      "--allow-write",
      "--allow-net",
      new URL("../internal/owner_socket_request_steps.ts", import.meta.url).pathname,
    ],
    env: { NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const said = new TextDecoder().decode(output.stdout) + new TextDecoder().decode(output.stderr);
  assert.ok(output.success, said);
  assert.match(said, /ok \| 1 passed \(5 steps\)/, said);
});
