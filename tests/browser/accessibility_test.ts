import {
  BROWSER_TEST,
  Installation,
  launchBrowser,
  openPage,
  type WatchedPage,
} from "./_browser.ts";
import { examplePath, setUpExamples } from "./_demo.ts";
import { EXTENSION, INSTALL, RECEIPT_ID_ATTRIBUTE, START, WINDOW } from "./_names.ts";

Deno.test("axe finds nothing serious or critical on any page", BROWSER_TEST, async (t) => {
  const browser = await launchBrowser();
  const installation = await Installation.create();
  try {
    const site = await installation.project("site");
    await setUpExamples(installation.home, site);
    await installation.serve();
    await installation.syncOk(["open", "--project", site]);
    const window = `/p/${encodeURIComponent(site)}/extensions`;

    for (const colorScheme of ["light", "dark"] as const) {
      const check = async (
        name: string,
        path: string,
        ready: (watched: WatchedPage) => Promise<unknown>,
      ) => {
        await t.step(`${name} (${colorScheme})`, async () => {
          const watched = await openPage(browser, installation, { path, colorScheme });
          await ready(watched);
          await watched.assertAccessible(`${name} (${colorScheme})`);
          await watched.screenshot(`axe-${name.replaceAll(" ", "-")}-${colorScheme}`);
          await watched.close();
        });
      };
      await check(
        "the start page",
        "/",
        ({ page }) =>
          page.getByRole("region", { name: START.recentHeading }).getByRole("link").first()
            .waitFor(),
      );
      await check(
        "the project window",
        window,
        ({ page }) =>
          page.getByRole("list", { name: WINDOW.extensionList }).getByRole("listitem").nth(2)
            .waitFor(),
      );
      await check(
        "an extension's page",
        `${window}/issues`,
        ({ page }) => page.locator(`[${RECEIPT_ID_ATTRIBUTE}]`).first().waitFor(),
      );
      await check("the install dialog", window, async ({ page }) => {
        await page.getByRole("button", { name: INSTALL.openButton }).click();
        const dialog = page.getByRole("dialog", { name: INSTALL.dialog });
        await dialog.getByLabel(INSTALL.pathField).waitFor();
        await dialog.getByLabel(INSTALL.pathField).fill(examplePath("triage"));
        await dialog.getByRole("button", { name: INSTALL.readButton }).click();
        await dialog.getByRole("button", { name: INSTALL.approve, exact: true }).waitFor();
      });
      await check("the remove dialog", `${window}/hello`, async ({ page }) => {
        await page.getByRole("button", { name: EXTENSION.removeButton }).click();
        await page.getByRole("dialog", { name: EXTENSION.removeDialog }).waitFor();
      });
    }
  } finally {
    await installation.close();
    await browser.close();
  }
});
