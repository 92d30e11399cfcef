import assert from "node:assert/strict";
import {
  BROWSER_TEST,
  expectText,
  Installation,
  launchBrowser,
  openPage,
  quietPackage,
} from "./_browser.ts";
import { START } from "./_names.ts";

/** Marks the page, so a test can tell it was not loaded again. */
const MARK = "window.__marker = 'no reload'";
const MARKED = "window.__marker";

Deno.test(
  "the start page shows installs and openings made elsewhere, without a reload",
  BROWSER_TEST,
  async (t) => {
    const browser = await launchBrowser();
    const installation = await Installation.create();
    try {
      const site = await installation.project("site");
      const notes = await installation.project("notes");
      await installation.install(await installation.writePackage(quietPackage("first")), site);
      await installation.serve();
      await installation.syncOk(["open", "--project", site]);

      await t.step(
        "an install and a `sync open` in a terminal show on the open start page",
        async () => {
          const watched = await openPage(browser, installation);
          const { page } = watched;
          const recent = page.getByRole("region", { name: START.recentHeading });
          const siteRow = recent.getByRole("listitem").filter({ hasText: site });
          await expectText(siteRow, /1 extension · opened/);
          await page.evaluate(MARK);

          await installation.install(await installation.writePackage(quietPackage("second")), site);
          await expectText(siteRow, /2 extensions · opened/);

          await installation.syncOk(["open", "--project", notes]);
          await expectText(recent.getByRole("listitem").first(), notes);
          const rows = await recent.getByRole("link").allTextContents();
          assert.match(rows[0], /notes/, "last opened first");
          assert.match(rows[1], /site/);
          await watched.screenshot("start-live-after-cli");
          assert.equal(await page.evaluate(MARKED), "no reload");

          await installation.syncOk(["remove", "second", "--project", site]);
          await expectText(siteRow, /1 extension · opened/);
          assert.equal(await page.evaluate(MARKED), "no reload");
          await watched.close();
        },
      );
    } finally {
      await installation.close();
      await browser.close();
    }
  },
);
