import { join } from "node:path";
import { BROWSER_TEST, expectText, Installation, launchBrowser, openPage } from "./_browser.ts";
import { FIRST_RUN } from "./_names.ts";

Deno.test(
  "a home folder that is the filesystem's root is not browsed: the browser says why",
  BROWSER_TEST,
  async (t) => {
    const browser = await launchBrowser();
    const installation = await Installation.create();
    try {
      // A home that resolves to `/`: browsing it would show the whole disk.
      const slash = join(installation.root, "slash");
      await Deno.symlink("/", slash);
      installation.personHome = slash;
      await installation.serve();

      await t.step("the browser offers only the bundled examples, and says why", async () => {
        const watched = await openPage(browser, installation);
        const { page } = watched;
        await page.getByRole("button", { name: FIRST_RUN.chooseProject }).click();
        const browse = page.getByRole("region", { name: FIRST_RUN.projectBrowser });
        await expectText(
          browse,
          /Home \(.*slash\) is not offered: it is the filesystem's root, and browsing it would show the whole disk/,
        );
        await expectText(browse.getByRole("heading"), /extensions/);
        await expectText(browse.getByRole("list", { name: FIRST_RUN.folders }), /hello/);
        await watched.assertAccessible("the folder browser with home left out");
        await watched.screenshot("start-folder-browser-root-left-out-light");
        await watched.close();
      });
    } finally {
      await browser.close();
      await installation.close();
    }
  },
);
