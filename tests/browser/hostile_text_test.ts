import assert from "node:assert/strict";
import {
  BROWSER_TEST,
  expectText,
  Installation,
  launchBrowser,
  openPage,
  quietPackage,
} from "./_browser.ts";
import { WINDOW } from "./_names.ts";

/** Markup a package might put in its manifest, hoping the page would run it. */
const HOSTILE = "<img src=x onerror=alert(1)>";

Deno.test("what a package says is shown as text, never as markup", BROWSER_TEST, async (t) => {
  const browser = await launchBrowser();
  const installation = await Installation.create();
  try {
    const project = await installation.project("site");
    const folder = await installation.writePackage(
      quietPackage("sly", { manifest: { description: HOSTILE } }),
    );
    await installation.install(folder, project);
    await installation.serve();

    for (const colorScheme of ["light", "dark"] as const) {
      await t.step(`the description shows as its characters (${colorScheme})`, async () => {
        const path = `/p/${encodeURIComponent(project)}/extensions/sly`;
        const watched = await openPage(browser, installation, { path, colorScheme });
        const { page } = watched;
        const row = page.getByRole("list", { name: WINDOW.extensionList }).getByRole("listitem");
        await expectText(row, HOSTILE);
        // The page of the package says it too, once it is read.
        await expectText(page.getByRole("main"), HOSTILE);
        assert.equal(await page.locator("img").count(), 0, "no img element");
        assert.deepEqual(watched.nativeDialogs, [], "no alert ran");
        await watched.assertAccessible(`a hostile package's page (${colorScheme})`);
        await watched.close();
      });
    }
  } finally {
    await installation.close();
    await browser.close();
  }
});
