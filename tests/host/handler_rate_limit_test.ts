import assert from "node:assert/strict";
import { join } from "node:path";
import { HandlerRateLimit } from "../../runtime/host/handler_rate_limit.ts";
import { Host } from "../../runtime/host/host.ts";
import { installPackage } from "../../runtime/lifecycle/install.ts";
import { DEFAULT_LIMITS } from "../../runtime/limits.ts";
import { RateLimitedError } from "../../runtime/errors.ts";
import { writePackage } from "../internal/packages.ts";

const T0 = Date.UTC(2030, 0, 1, 9, 0, 0);
const P = "/projects/alpha";

/** Rejects with a RateLimitedError with exactly this message. */
async function refused(run: () => Promise<void>, message: string): Promise<void> {
  await assert.rejects(run, (error: Error) => {
    assert.ok(error instanceof RateLimitedError, `${error.name}: ${error.message}`);
    assert.equal(error.message, message);
    return true;
  });
}

Deno.test("`HandlerRateLimit.count()` allows `rateLimit` calls per window", async (t) => {
  using kv = await Deno.openKv(":memory:");
  const limit = new HandlerRateLimit(kv, { rateLimit: 3, rateWindowMs: 60_000 });
  const full = "mail.poll was called 3 times in the last 60 s; the limit is 3. Try again later";

  await t.step("calls up to the limit are counted", async () => {
    await limit.count(P, "mail", "mail.poll", T0);
    await limit.count(P, "mail", "mail.poll", T0 + 1_000);
    await limit.count(P, "mail", "mail.poll", T0 + 2_000);
  });

  await t.step("the next call within the window is refused, naming the limit", async () => {
    await refused(() => limit.count(P, "mail", "mail.poll", T0 + 3_000), full);
  });

  await t.step("a refused call is not counted", async () => {
    await refused(() => limit.count(P, "mail", "mail.poll", T0 + 59_999), full);
    // Had the refusals counted, the window would still be full here.
    await limit.count(P, "mail", "mail.poll", T0 + 60_000);
  });

  await t.step("the window slides: a call leaves it a window after it was made", async () => {
    await refused(() => limit.count(P, "mail", "mail.poll", T0 + 60_999), full);
    await limit.count(P, "mail", "mail.poll", T0 + 61_000);
  });

  await t.step("the count is per handler, per package and per project", async () => {
    await limit.count(P, "mail", "mail.send", T0 + 61_000);
    await limit.count(P, "post", "mail.poll", T0 + 61_000);
    await limit.count("/projects/beta", "mail", "mail.poll", T0 + 61_000);
    await refused(() => limit.count(P, "mail", "mail.poll", T0 + 61_001), full);
  });

  await t.step("the count is the installation's: a second counter over it sees it", async () => {
    const second = new HandlerRateLimit(kv, { rateLimit: 3, rateWindowMs: 60_000 });
    await refused(() => second.count(P, "mail", "mail.poll", T0 + 61_002), full);
  });
});

Deno.test("`HandlerRateLimit.count()` says the window in seconds", async () => {
  using kv = await Deno.openKv(":memory:");
  const limit = new HandlerRateLimit(kv, { rateLimit: 2, rateWindowMs: 1_500 });
  await limit.count(P, "mail", "mail.poll", T0);
  await limit.count(P, "mail", "mail.poll", T0 + 1);
  await refused(
    () => limit.count(P, "mail", "mail.poll", T0 + 1_499),
    "mail.poll was called 2 times in the last 1.5 s; the limit is 2. Try again later",
  );
  await limit.count(P, "mail", "mail.poll", T0 + 1_500);
});

Deno.test(
  "the rate limit counts the calls of every process that owned the installation, one after another",
  async () => {
    const root = await Deno.makeTempDir({ prefix: "sync-rate-" });
    const home = join(root, "home");
    const project = join(root, "project");
    await Deno.mkdir(project);
    const limits = { ...DEFAULT_LIMITS, rateLimit: 2 };
    /** One process's turn: opens the installation, runs `use`, closes it. */
    const owning = async (use: (host: Host) => Promise<void>) => {
      await Deno.mkdir(home, { recursive: true });
      const kv = await Deno.openKv(join(home, "sync.kv"));
      const host = new Host({ kv, home, limits, log: () => {} });
      try {
        await use(host);
      } finally {
        await host.close();
        kv.close();
      }
    };
    const call = (host: Host) =>
      host.callHandler(project, "ping", "ping.run", {
        occasion: { kind: "extension" },
        source: { kind: "person" },
      });
    try {
      const folder = await writePackage(join(root, "packages"), {
        id: "ping",
        handlers: ["ping.run"],
        service: `export default function register() { return { "ping.run": () => 1 }; }`,
      });
      await owning(async (host) => {
        await installPackage(host, folder, project, { approve: true });
        await call(host);
      });
      await owning(async (host) => void await call(host));
      await owning(async (host) => {
        await assert.rejects(call(host), RateLimitedError);
      });
    } finally {
      await Deno.remove(root, { recursive: true });
    }
  },
);

Deno.test("`HandlerRateLimit.count()` says a limit of one call in words that fit it", async () => {
  using kv = await Deno.openKv(":memory:");
  const limit = new HandlerRateLimit(kv, { rateLimit: 1, rateWindowMs: 60_000 });
  await limit.count(P, "mail", "mail.poll", T0);
  await refused(
    () => limit.count(P, "mail", "mail.poll", T0 + 1),
    "mail.poll was called once in the last 60 s; the limit is 1. Try again later",
  );
});

Deno.test("`HandlerRateLimit.count()` keeps a small count however high the limit", async (t) => {
  using kv = await Deno.openKv(":memory:");
  const limit = new HandlerRateLimit(kv, { rateLimit: 1_000, rateWindowMs: 60_000 });
  for (let i = 0; i < 1_000; i++) await limit.count(P, "mail", "mail.poll", T0 + i);
  await t.step("what is stored stays at most 64 entries", async () => {
    const [entry] = await Array.fromAsync(kv.list<unknown[]>({ prefix: [] }));
    assert.ok(entry, "a count is stored");
    assert.ok(entry.value.length <= 64, `${entry.value.length} entries`);
  });
  await t.step("no call is let through before the window allows it", async () => {
    await refused(
      () => limit.count(P, "mail", "mail.poll", T0 + 59_999),
      "mail.poll was called 1000 times in the last 60 s; the limit is 1000. Try again later",
    );
  });
  await t.step("once the window has passed every call, calls are counted again", async () => {
    await limit.count(P, "mail", "mail.poll", T0 + 60_999);
  });
});
