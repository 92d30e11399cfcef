import { runSocketSteps } from "../internal/socket_steps.ts";

Deno.test("`sendToServe()` and `postToOwner()` read what answers on the owner's socket within bounds", async () => {
  await runSocketSteps("owner_answer_steps.ts", "2 passed (16 steps)");
});
