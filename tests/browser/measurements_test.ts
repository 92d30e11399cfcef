import assert from "node:assert/strict";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { fileURLToPath } from "node:url";
import {
  BROWSER_TEST,
  expectCount,
  Installation,
  launchBrowser,
  openPage,
  quietPackage,
  until,
} from "./_browser.ts";
import { setUpDemo } from "./_demo.ts";
import { RECEIPT_ID_ATTRIBUTE, WINDOW } from "./_names.ts";

const PACKAGES = 20;
const CALLS_EACH = 50;

/** Measurements are printed and written, not held to a bound: the machine they run on is shared. */
function report(measurements: Record<string, number>, file: string): void {
  for (const [name, value] of Object.entries(measurements)) {
    console.log(`measured: ${name} = ${value}`);
  }
  Deno.writeTextFileSync(file, JSON.stringify(measurements, null, 2) + "\n");
  console.log(`measured: written to ${file}`);
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

Deno.test("measurements of the window", BROWSER_TEST, async (t) => {
  const browser = await launchBrowser();
  const installation = await Installation.create();
  const measurements: Record<string, number> = {};
  try {
    const project = await installation.project("busy");
    const packages = [];
    for (let i = 0; i < PACKAGES; i++) {
      const id = `pkg${String(i).padStart(2, "0")}`;
      packages.push({
        id,
        folder: await installation.writePackage(quietPackage(id)),
        calls: Array.from({ length: CALLS_EACH }, (_, n) => ({ handler: `${id}.run`, payload: n })),
      });
    }
    const setUpStart = performance.now();
    await setUpDemo(installation.home, project, packages);
    measurements.setUpMs = Math.round(performance.now() - setUpStart);
    const listed = await installation.syncOk([
      "receipts",
      "--project",
      project,
      "--limit",
      "1000",
      "--json",
    ]);
    assert.equal(listed.trim().split("\n").length, PACKAGES * CALLS_EACH);
    await installation.serve();

    await t.step("the bundle's size, gzipped", async () => {
      const dist = fileURLToPath(new URL("../../ui/dist/", import.meta.url));
      let total = 0;
      for (const name of ["app.js", "app.css"]) {
        const gzipped = gzipSync(await Deno.readFile(join(dist, name)), { level: 9 }).length;
        measurements[`${name}GzipBytes`] = gzipped;
        total += gzipped;
      }
      measurements.bundleGzipBytes = total;
    });

    await t.step(
      `time to the Extensions page with ${PACKAGES} packages and ${PACKAGES * CALLS_EACH} receipts`,
      async () => {
        const watched = await openPage(browser, installation);
        const { page } = watched;
        const rows = page.getByRole("list", { name: WINDOW.extensionList }).getByRole("listitem");
        const times: number[] = [];
        for (let i = 0; i < 3; i++) {
          const start = Date.now();
          await page.goto(`${installation.origin}/p/${encodeURIComponent(project)}/extensions`);
          await expectCount(rows, PACKAGES);
          times.push(Date.now() - start);
        }
        measurements.extensionsPageMs = median(times);
        // And one package's page, up to its receipts.
        const pageTimes: number[] = [];
        for (let i = 0; i < 3; i++) {
          const start = Date.now();
          await page.goto(
            `${installation.origin}/p/${encodeURIComponent(project)}/extensions/pkg01`,
          );
          await page.locator(`[${RECEIPT_ID_ATTRIBUTE}]`).first().waitFor();
          pageTimes.push(Date.now() - start);
        }
        measurements.extensionPageWithReceiptsMs = median(pageTimes);
        await watched.close();
      },
    );

    await t.step("from a receipt written to its row on the open page", async () => {
      const path = `/p/${encodeURIComponent(project)}/extensions/pkg00`;
      const watched = await openPage(browser, installation, { path });
      const { page } = watched;
      await page.locator(`[${RECEIPT_ID_ATTRIBUTE}]`).first().waitFor();
      // The page notes when each receipt's row appears, on its own clock (the machine's).
      await page.evaluate(`(() => {
        window.__seen = {};
        new MutationObserver((changes) => {
          const at = performance.timeOrigin + performance.now();
          for (const change of changes) {
            for (const node of change.addedNodes) {
              if (node.nodeType !== 1) continue;
              const rows = [node, ...node.querySelectorAll("[${RECEIPT_ID_ATTRIBUTE}]")];
              for (const row of rows) {
                const id = row.getAttribute && row.getAttribute("${RECEIPT_ID_ATTRIBUTE}");
                if (id && !(id in window.__seen)) window.__seen[id] = at;
              }
            }
          }
        }).observe(document.body, { childList: true, subtree: true });
      })()`);
      const delays: number[] = [];
      for (let i = 0; i < 5; i++) {
        const called = await installation.call(project, "pkg00", "pkg00.run", { n: i });
        assert.equal(called.code, 0, called.stderr);
        const [line] = (await installation.syncOk([
          "receipts",
          "--project",
          project,
          "--id",
          "pkg00",
          "--limit",
          "1",
          "--json",
        ])).trim().split("\n");
        const receipt = JSON.parse(line) as { id: string; endedAt: string };
        let seen = 0;
        await until(`the row of receipt ${receipt.id}`, async () => {
          seen = await page.evaluate(`window.__seen[${JSON.stringify(receipt.id)}] ?? 0`) as number;
          return seen > 0;
        });
        delays.push(Math.round(seen - Date.parse(receipt.endedAt)));
      }
      measurements.receiptToRowMsMedian = median(delays);
      measurements.receiptToRowMsMax = Math.max(...delays);
      await watched.close();
    });
  } finally {
    report(measurements, join(installation.root, "..", "sync-browser-measurements.json"));
    await installation.close();
    await browser.close();
  }
});
