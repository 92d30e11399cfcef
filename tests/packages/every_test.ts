import assert from "node:assert/strict";
import {
  describeEvery,
  MAX_EVERY_MS,
  MIN_EVERY_MS,
  parseEvery,
} from "../../runtime/packages/every.ts";
import { InvalidInputError } from "../../runtime/errors.ts";

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

Deno.test("`parseEvery()` reads minutes, hours and days into milliseconds", async (t) => {
  const cases: Array<[string, number]> = [
    ["1m", MINUTE],
    ["15m", 15 * MINUTE],
    ["90m", 90 * MINUTE],
    ["1h", HOUR],
    ["2h", 2 * HOUR],
    ["1d", DAY],
    ["30d", 30 * DAY],
    ["720h", 30 * DAY],
    ["43200m", 30 * DAY],
  ];
  for (const [every, ms] of cases) {
    await t.step(`${every} is ${ms} ms`, () => {
      assert.equal(parseEvery(every), ms);
    });
  }
  await t.step("the bounds are 1m and 30d", () => {
    assert.equal(MIN_EVERY_MS, MINUTE);
    assert.equal(MAX_EVERY_MS, 30 * DAY);
  });
});

Deno.test("`parseEvery()` refuses what is not an interval, saying why", async (t) => {
  const cases: Array<[string, string]> = [
    ["30s", `"30s" is shorter than the 1m minimum`],
    ["0s", `"0s" is shorter than the 1m minimum`],
    ["0m", `"0m" is zero; the shortest interval is 1m`],
    ["0d", `"0d" is zero`],
    ["31d", `"31d" is longer than the 30d maximum`],
    ["721h", `"721h" is longer than the 30d maximum`],
    ["43201m", `"43201m" is longer than the 30d maximum`],
    ["1w", `unknown unit "w" in "1w"; expected m (minutes), h (hours) or d (days)`],
    ["15M", `unknown unit "M"`],
    ["*/5 * * * *", "cron syntax is not supported; use an interval like 15m, 1h or 1d"],
    ["0 3 * * 1", "cron syntax is not supported"],
    ["@hourly", "cron syntax is not supported"],
    ["", `expected an interval like 15m, 1h or 1d (a whole number, then m, h or d), got ""`],
    ["1.5h", `got "1.5h"`],
    ["-5m", `got "-5m"`],
    [" 15m", `got " 15m"`],
    ["m", `got "m"`],
    ["15", `got "15"`],
  ];
  for (const [every, message] of cases) {
    await t.step(JSON.stringify(every), () => {
      assert.throws(
        () => parseEvery(every),
        (error: unknown) => {
          assert.ok(error instanceof InvalidInputError, `expected InvalidInputError, got ${error}`);
          assert.ok(
            error.message.includes(message),
            `message ${JSON.stringify(error.message)} lacks ${JSON.stringify(message)}`,
          );
          return true;
        },
      );
    });
  }
  await t.step("a value that is not a string", () => {
    assert.throws(() => parseEvery(15 as unknown as string), InvalidInputError);
  });
});

Deno.test("`describeEvery()` says an interval in its largest whole unit", async (t) => {
  const cases: Array<[string, string]> = [
    ["1m", "every minute"],
    ["15m", "every 15 minutes"],
    ["60m", "every hour"],
    ["90m", "every 90 minutes"],
    ["120m", "every 2 hours"],
    ["1h", "every hour"],
    ["2h", "every 2 hours"],
    ["24h", "every day"],
    ["36h", "every 36 hours"],
    ["48h", "every 2 days"],
    ["1440m", "every day"],
    ["1d", "every day"],
    ["3d", "every 3 days"],
    ["30d", "every 30 days"],
  ];
  for (const [every, wording] of cases) {
    await t.step(`${every} → ${wording}`, () => {
      assert.equal(describeEvery(every), wording);
    });
  }
  await t.step("refuses an invalid interval", () => {
    assert.throws(() => describeEvery("30s"), InvalidInputError);
  });
});
