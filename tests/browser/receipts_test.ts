import assert from "node:assert/strict";
import {
  BROWSER_TEST,
  expectText,
  Installation,
  launchBrowser,
  openPage,
  quietPackage,
} from "./_browser.ts";
import { EXTENSION, RECEIPT_ID_ATTRIBUTE } from "./_names.ts";

/** An error class name in front of words, such as `HandlerFailedError: …`. */
const CLASS_NAME_FIRST = /(^|: )[A-Z]\w*Error: /;

Deno.test("receipts arrive on the open page", BROWSER_TEST, async (t) => {
  const browser = await launchBrowser();
  const installation = await Installation.create();
  try {
    const project = await installation.project("site");
    const folder = await installation.writePackage(quietPackage("echo", {
      handlers: ["echo.run", "echo.fail", "echo.gone"],
      manifest: { lifecycle: { removed: "echo.gone" } },
      service: `export default function register() {
  return {
    "echo.run": (payload) => payload,
    "echo.fail": () => { throw new TypeError("no tracker configured"); },
    "echo.gone": () => { throw new Error("the tracker still holds a lock"); },
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
        // The person's own call from the command line says so, not "extension".
        await expectText(firstRow.locator(".receipt-occasion"), "By you, from the command line");

        const failed = await installation.call(project, "echo", "echo.fail");
        assert.notEqual(failed.code, 0);
        const second = await latest();
        const secondRow = page.locator(`[${RECEIPT_ID_ATTRIBUTE}="${second.id}"]`);
        // What happened, in words first: the handler's own error follows, no class name leads.
        const error = secondRow.locator(".receipt-error");
        await expectText(error, "Handler echo.fail failed: no tracker configured");
        assert.doesNotMatch(await error.innerText(), CLASS_NAME_FIRST);
        // Newest first; the page was not loaded again.
        const ids = await receipts.locator(`[${RECEIPT_ID_ATTRIBUTE}]`).evaluateAll((rows) =>
          rows.map((row) => row.getAttribute("data-receipt-id"))
        );
        assert.deepEqual(ids, [second.id, first.id]);
        assert.equal(await page.evaluate("window.__marker"), "no reload");
        await watched.assertAccessible("an extension's page with receipts");
        await watched.screenshot("receipts-failed-call");
        await watched.close();
      },
    );

    await t.step("a refused removal says what happened in words, no class name", async () => {
      const watched = await openPage(browser, installation, {
        path,
        expectedConsole: [/status of 422/],
      });
      const { page } = watched;
      await page.getByRole("button", { name: EXTENSION.removeButton }).click();
      const dialog = page.getByRole("dialog", { name: EXTENSION.removeDialog });
      await dialog.getByRole("button", { name: EXTENSION.remove, exact: true }).click();
      const alert = dialog.getByRole("alert");
      await expectText(
        alert,
        /^Cannot remove echo from .*: its removed handler echo\.gone failed: /,
      );
      await expectText(alert, /Handler echo\.gone failed: the tracker still holds a lock/);
      assert.doesNotMatch(await alert.innerText(), CLASS_NAME_FIRST);
      await watched.assertAccessible("the remove dialog, refused");
      await watched.screenshot("remove-refused");
      await watched.close();
    });
  } finally {
    await installation.close();
    await browser.close();
  }
});
