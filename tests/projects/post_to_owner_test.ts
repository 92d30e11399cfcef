import { runSocketSteps } from "../internal/socket_steps.ts";

Deno.test("`postToOwner()` posts over the owner's socket and reads the answer as it streams", async () => {
  await runSocketSteps("post_to_owner_steps.ts", "1 passed (4 steps)");
});
