import assert from "node:assert/strict";
import { join } from "node:path";
import {
  BROWSER_TEST,
  expectText,
  Installation,
  launchBrowser,
  openPage,
  quietPackage,
  until,
} from "./_browser.ts";
import { START, WINDOW } from "./_names.ts";

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

Deno.test(
  "a lamp follows its linked folder as its manifest breaks and is fixed, without a reload",
  BROWSER_TEST,
  async (t) => {
    const browser = await launchBrowser();
    const installation = await Installation.create();
    try {
      const project = await installation.project("site");
      const folder = await installation.writePackage(
        quietPackage("hello", { manifest: { name: "Hello" } }),
      );
      await installation.install(folder, project);
      await installation.serve();
      const manifest = join(folder, "manifest.json");
      const good = await Deno.readTextFile(manifest);

      await t.step(
        "broken: the row and the page turn red within moments; fixed: ready again",
        async () => {
          const path = `/p/${encodeURIComponent(project)}/extensions/hello`;
          // While it cannot be read, the page's own read of it is answered 404, as it should be.
          const watched = await openPage(browser, installation, {
            path,
            expectedConsole: [/Failed to load resource: the server responded with a status of 404/],
          });
          const { page } = watched;
          const row = page.getByRole("list", { name: WINDOW.extensionList }).getByRole("listitem")
            .filter({ hasText: /Hello|hello/ });
          const lamp = row.locator(".lamp-wrap");
          const pageLamp = page.locator("article.extension-page .page-lamp");
          await expectText(pageLamp, "ready");
          await page.evaluate(MARK);
          const classOf = async () => await lamp.getAttribute("class") ?? "";

          await Deno.writeTextFile(manifest, `{ "id": "hello", broken`);
          const broken = Date.now();
          await until("a red lamp", async () => /\blamp-red\b/.test(await classOf()), 10_000);
          const redAfter = Date.now() - broken;
          await expectText(row, /needs you/);
          await expectText(row, /hello cannot be read: [^]*Fix its folder: Sync reads it again/);
          assert.doesNotMatch(await row.innerText(), /sync install|--approve/);
          await expectText(pageLamp, "needs you");
          await watched.screenshot("live-lamp-broken");

          await Deno.writeTextFile(manifest, good);
          const fixed = Date.now();
          await until("a steady lamp", async () => /\blamp-steady\b/.test(await classOf()), 10_000);
          const steadyAfter = Date.now() - fixed;
          await expectText(pageLamp, "ready");
          await expectText(page.getByRole("heading", { level: 2 }), "Hello");
          await watched.screenshot("live-lamp-fixed");
          assert.equal(await page.evaluate(MARKED), "no reload");
          console.log(
            `lamp red ${redAfter} ms after the write; steady ${steadyAfter} ms after the fix`,
          );
          // Live means moments, not a poll's interval; generous for a loaded 2-core machine.
          assert.ok(redAfter < 5_000 && steadyAfter < 5_000, `${redAfter} ms, ${steadyAfter} ms`);
          await watched.close();
        },
      );
    } finally {
      await installation.close();
      await browser.close();
    }
  },
);
