import assert from "node:assert/strict";
import {
  BROWSER_TEST,
  expectText,
  Installation,
  launchBrowser,
  openPage,
  quietPackage,
} from "./_browser.ts";
import { RECEIPT_ID_ATTRIBUTE } from "./_names.ts";

Deno.test("receipts arrive on the open page", BROWSER_TEST, async (t) => {
  const browser = await launchBrowser();
  const installation = await Installation.create();
  try {
    const project = await installation.project("site");
    const folder = await installation.writePackage(quietPackage("echo", {
      handlers: ["echo.run", "echo.fail"],
      service: `export default function register() {
  return {
    "echo.run": (payload) => payload,
    "echo.fail": () => { throw new TypeError("no tracker configured"); },
  };
}`,
    }));
    await installation.install(folder, project);
    await installation.serve();
    const path = `/p/${encodeURIComponent(project)}/extensions/echo`;
    const latest = async () => {
      const [line] = (await installation.syncOk([
        "receipts",
        "--project",
        project,
        "--id",
        "echo",
        "--limit",
        "1",
        "--json",
      ])).trim().split("\n");
      return JSON.parse(line) as { id: string };
    };

    await t.step(
      "a `sync call` from another process shows its receipt without a reload",
      async () => {
        const watched = await openPage(browser, installation, { path });
        const { page } = watched;
        const receipts = page.getByRole("list", { name: "Receipts" });
        await expectText(page.getByRole("main"), /Nothing has run here yet/);
        await page.evaluate("window.__marker = 'no reload'");

        const ok = await installation.call(project, "echo", "echo.run", { n: 1 });
        assert.equal(ok.code, 0, ok.stderr);
        const first = await latest();
        const firstRow = page.locator(`[${RECEIPT_ID_ATTRIBUTE}="${first.id}"]`);
        await expectText(firstRow, /echo\.run/);

        const failed = await installation.call(project, "echo", "echo.fail");
        assert.notEqual(failed.code, 0);
        const second = await latest();
        const secondRow = page.locator(`[${RECEIPT_ID_ATTRIBUTE}="${second.id}"]`);
        await expectText(secondRow, /TypeError: no tracker configured/);
        // Newest first; the page was not loaded again.
        const ids = await receipts.locator(`[${RECEIPT_ID_ATTRIBUTE}]`).evaluateAll((rows) =>
          rows.map((row) => row.getAttribute("data-receipt-id"))
        );
        assert.deepEqual(ids, [second.id, first.id]);
        assert.equal(await page.evaluate("window.__marker"), "no reload");
        await watched.assertAccessible("an extension's page with receipts");
        await watched.close();
      },
    );
  } finally {
    await installation.close();
    await browser.close();
  }
});
