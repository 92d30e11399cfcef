import { runSocketSteps } from "../internal/socket_steps.ts";

Deno.test("`ownerSocketClient()` requests over the owner's socket and streams the answers", async () => {
  await runSocketSteps("owner_socket_request_steps.ts", "1 passed (5 steps)");
});
