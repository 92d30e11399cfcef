import assert from "node:assert/strict";
import { HandlerRateLimit } from "../../runtime/host/handler_rate_limit.ts";
import { RateLimitedError } from "../../runtime/errors.ts";

const T0 = Date.UTC(2030, 0, 1, 9, 0, 0);
const P = "/projects/alpha";

/** Throws a RateLimitedError with exactly this message. */
function refused(run: () => void, message: string): void {
  assert.throws(run, (error: Error) => {
    assert.ok(error instanceof RateLimitedError, `${error.name}: ${error.message}`);
    assert.equal(error.message, message);
    return true;
  });
}

Deno.test("`HandlerRateLimit.count()` allows `rateLimit` calls per window", async (t) => {
  const limit = new HandlerRateLimit({ rateLimit: 3, rateWindowMs: 60_000 });
  const full = "mail.poll was called 3 times in the last 60 s; the limit is 3. Try again later";

  await t.step("calls up to the limit are counted", () => {
    limit.count(P, "mail", "mail.poll", T0);
    limit.count(P, "mail", "mail.poll", T0 + 1_000);
    limit.count(P, "mail", "mail.poll", T0 + 2_000);
  });

  await t.step("the next call within the window is refused, naming the limit", () => {
    refused(() => limit.count(P, "mail", "mail.poll", T0 + 3_000), full);
  });

  await t.step("a refused call is not counted", () => {
    refused(() => limit.count(P, "mail", "mail.poll", T0 + 59_999), full);
    // Had the refusals counted, the window would still be full here.
    limit.count(P, "mail", "mail.poll", T0 + 60_000);
  });

  await t.step("the window slides: a call leaves it a window after it was made", () => {
    refused(() => limit.count(P, "mail", "mail.poll", T0 + 60_999), full);
    limit.count(P, "mail", "mail.poll", T0 + 61_000);
  });

  await t.step("the count is per handler, per package and per project", () => {
    limit.count(P, "mail", "mail.send", T0 + 61_000);
    limit.count(P, "post", "mail.poll", T0 + 61_000);
    limit.count("/projects/beta", "mail", "mail.poll", T0 + 61_000);
    refused(() => limit.count(P, "mail", "mail.poll", T0 + 61_001), full);
  });
});

Deno.test("`HandlerRateLimit.count()` says the window in seconds", () => {
  const limit = new HandlerRateLimit({ rateLimit: 2, rateWindowMs: 1_500 });
  limit.count(P, "mail", "mail.poll", T0);
  limit.count(P, "mail", "mail.poll", T0 + 1);
  refused(
    () => limit.count(P, "mail", "mail.poll", T0 + 1_499),
    "mail.poll was called 2 times in the last 1.5 s; the limit is 2. Try again later",
  );
  limit.count(P, "mail", "mail.poll", T0 + 1_500);
});
