import assert from "node:assert/strict";
import {
  BROWSER_TEST,
  expectCount,
  expectGone,
  expectText,
  hasFocus,
  Installation,
  launchBrowser,
  openPage,
  type Page,
  quietPackage,
  until,
} from "./_browser.ts";
import { FIND, RECEIPT_ID_ATTRIBUTE, RECORDS, WINDOW } from "./_names.ts";

const HOSTILE = "<img src=x onerror=alert(1)>";

/** The href of the link that has the focus; "" when what has it is not a link. */
async function focusedHref(page: Page): Promise<string> {
  return await page.evaluate("document.activeElement?.getAttribute('href') ?? ''") as string;
}

const NOTES = quietPackage("notes", {
  handlers: ["notes.write"],
  service: `import { memory } from "@sync/extension-api/service";
export default function register() {
  return {
    "notes.write": async () => {
      await memory.write({ key: "notes.note/printer", title: "Printer jam on floor 2",
        fields: { owner: "Ada", priority: 2, tags: ["office"] },
        content: "The printer jams on every second page.\\n" + ${JSON.stringify(HOSTILE)} });
      await memory.write({ key: "notes.note/coffee", title: "Coffee machine",
        fields: { owner: "Bob" } });
      await memory.write({ key: "notes.todo/paper", title: "Buy paper for the printer" });
      return null;
    },
  };
}`,
});

Deno.test(
  "the Records area lists, searches and shows a project's records",
  BROWSER_TEST,
  async (t) => {
    const browser = await launchBrowser();
    const installation = await Installation.create();
    try {
      const site = await installation.project("site");
      const empty = await installation.project("empty");
      await installation.install(await installation.writePackage(NOTES), site);
      await installation.serve();
      await installation.syncOk(["open", "--project", empty]);
      const called = await installation.call(site, "notes", "notes.write");
      assert.equal(called.code, 0, called.stderr);
      const records = `/p/${encodeURIComponent(site)}/records`;

      await t.step(
        "a project with no records says so and offers the way to Extensions",
        async () => {
          const watched = await openPage(browser, installation, {
            path: `/p/${encodeURIComponent(empty)}/records`,
          });
          const { page } = watched;
          await expectText(page.getByRole("main", { name: RECORDS.detail }), RECORDS.empty);
          await watched.assertAccessible("Records with no records");
          await watched.screenshot("records-empty");
          await page.getByRole("link", { name: "Go to Extensions" }).click();
          await page.waitForURL((url) => url.pathname.endsWith("/extensions"));
          await watched.close();
        },
      );

      await t.step("a receipt links to the records its call wrote", async () => {
        const watched = await openPage(browser, installation, {
          path: `/p/${encodeURIComponent(site)}/extensions/notes`,
        });
        const { page } = watched;
        const receipt = page.locator(`[${RECEIPT_ID_ATTRIBUTE}]`).first();
        await expectText(
          receipt,
          /Wrote notes\.note\/coffee, notes\.note\/printer, notes\.todo\/paper/,
        );
        await watched.assertAccessible("a receipt with the records it wrote");
        await watched.screenshot("receipt-records");
        await receipt.getByRole("link", { name: "notes.note/printer" }).click();
        await page.waitForURL((url) => url.pathname === `${records}/notes.note/printer`);
        const detail = page.getByRole("main", { name: RECORDS.detail });
        await expectText(detail.getByRole("heading", { level: 2 }), "Printer jam on floor 2");
        // The record's text is shown as text: the markup is words on the page, no element.
        await expectText(detail, HOSTILE);
        assert.equal(await page.locator("img").count(), 0);
        await expectText(detail, /Revision 1/);
        await expectText(detail, /owner\s*Ada/);
        await expectText(detail, /\[\s*"office"\s*\]/);
        await watched.assertAccessible("a record");

        // Its writer links back to the receipt on the extension's page.
        await detail.getByRole("link", { name: /notes\.write/ }).click();
        await page.waitForURL((url) => url.pathname.endsWith("/extensions/notes"));
        assert.match(page.url(), /#receipt-/);
        const target = page.locator(`[${RECEIPT_ID_ATTRIBUTE}][data-target]`);
        await expectCount(target, 1);
        await watched.close();
      });

      await t.step("the list searches on the server and filters by kind", async () => {
        // A person's write after the call: its writer is the person, with no receipt.
        await installation.syncOk([
          "write",
          "--project",
          site,
          "--key",
          "notes.note/coffee",
          "--title",
          "Coffee machine descaled",
        ]);
        const watched = await openPage(browser, installation, { path: records });
        const { page } = watched;
        const rows = page.locator(".record-row");
        await expectCount(rows, 3);
        await expectText(page.getByRole("heading", { name: "notes.todo" }), "notes.todo");
        await watched.assertAccessible("Records, every kind");
        await page.getByLabel(RECORDS.search).fill("printer");
        await expectCount(rows, 2);
        await expectText(rows.first(), /Printer jam/);
        // A row names its record by its whole key, never by a bare name.
        await expectText(rows.first(), /notes\.note\/printer · revision 1/);
        await expectText(rows.nth(1), /Buy paper/);
        await page.getByLabel(RECORDS.search).fill("ADA");
        await expectCount(rows, 1);
        await page.getByLabel(RECORDS.search).fill("no such words");
        await expectText(page.getByRole("region", { name: "Records" }), /No record holds/);
        await page.getByLabel(RECORDS.search).fill("");
        await page.getByLabel(RECORDS.kind).selectOption("notes.todo");
        await page.waitForURL((url) => url.pathname === `${records}/notes.todo`);
        await expectCount(rows, 1);
        await page.getByLabel(RECORDS.kind).selectOption("");
        await expectCount(rows, 3);
        await rows.filter({ hasText: "Coffee" }).getByRole("link").click();
        const detail = page.getByRole("main", { name: RECORDS.detail });
        await expectText(detail, /Revision 2/);
        await expectText(detail, /A person, outside any handler/);
        await expectText(detail, /notes\.write/);
        await watched.assertAccessible("a record written by a person and a call");
        await watched.close();
      });

      await t.step("a record a call writes shows without a reload", async () => {
        const watched = await openPage(browser, installation, { path: records });
        const { page } = watched;
        const rows = page.locator(".record-row");
        await expectCount(rows, 3);
        await page.evaluate("window.__marker = 'no reload'");
        await installation.install(
          await installation.writePackage(quietPackage("later", {
            handlers: ["later.write"],
            service: `import { memory } from "@sync/extension-api/service";
export default function register() {
  return { "later.write": () => memory.write({ key: "later.note/1", title: "Written later" }) };
}`,
          })),
          site,
        );
        const called = await installation.call(site, "later", "later.write");
        assert.equal(called.code, 0, called.stderr);
        await expectCount(rows, 4);
        await expectText(page.getByRole("heading", { name: "later.note" }), "later.note");
        assert.equal(await page.evaluate("window.__marker"), "no reload");
        await watched.close();
      });

      await t.step(
        "`g r`, the palette and `/` reach Records; arrow keys move in its list",
        async () => {
          const watched = await openPage(browser, installation, {
            path: `/p/${encodeURIComponent(site)}/extensions`,
          });
          const { page } = watched;
          await page.getByRole("list", { name: WINDOW.extensionList }).waitFor();
          await page.keyboard.press("g");
          await page.keyboard.press("r");
          await page.waitForURL((url) => url.pathname === records);
          const rows = page.locator(".record-link");
          await expectCount(rows, 4);
          const hrefs = await rows.evaluateAll((links) =>
            links.map((link) => link.getAttribute("href") ?? "")
          );
          // `/` puts the focus in the search box; Down goes to the first row, then on.
          const search = page.getByLabel(RECORDS.search);
          await page.keyboard.press("/");
          await until("the search box has the focus", () => hasFocus(search));
          assert.equal(await search.inputValue(), "", "the / is not typed into the search box");
          await page.keyboard.press("ArrowDown");
          await until(
            "the first row has the focus",
            async () => await focusedHref(page) === hrefs[0],
          );
          await page.keyboard.press("ArrowDown");
          await until(
            "the second row has the focus",
            async () => await focusedHref(page) === hrefs[1],
          );
          await page.keyboard.press("End");
          await until(
            "the last row has the focus",
            async () => await focusedHref(page) === hrefs[3],
          );
          await page.keyboard.press("Home");
          await until(
            "the first row has the focus",
            async () => await focusedHref(page) === hrefs[0],
          );
          // Up from the first row goes back to the search box; Escape leaves it.
          await page.keyboard.press("ArrowUp");
          await until("the search box has the focus again", () => hasFocus(search));
          await page.keyboard.press("ArrowDown");
          await page.keyboard.press("ArrowDown");
          await until(
            "the second row has the focus",
            async () => await focusedHref(page) === hrefs[1],
          );
          // The list is one stop for Tab: only the row with the focus takes it.
          assert.equal(await page.locator(".record-link[tabindex='0']").count(), 1);
          await page.keyboard.press("Enter");
          await page.waitForURL((url) => url.pathname === hrefs[1]);
          await expectText(page.getByRole("main", { name: RECORDS.detail }), /Written by/);
          await watched.assertAccessible("Records moved in with the keyboard");
          await watched.screenshot("records-keys-light");

          // The command palette lists Records among its places.
          await page.keyboard.press("Control+K");
          const palette = page.getByRole("dialog", { name: FIND.palette });
          await palette.waitFor();
          await page.keyboard.type("records");
          await expectText(
            palette.getByRole("group", { name: "Go to" }).getByRole("option"),
            /Records/,
          );
          await page.keyboard.press("Escape");
          await expectGone(palette);

          // The `?` dialog lists `g r`.
          await page.keyboard.press("?");
          const shortcuts = page.getByRole("dialog", { name: FIND.shortcuts });
          await expectText(shortcuts, /Go to Records/);
          await watched.close();
        },
      );

      await t.step("a record that is not there says so in words", async () => {
        const watched = await openPage(browser, installation, {
          path: `${records}/notes.note/gone`,
          expectedConsole: [/status of 404/],
        });
        await expectText(
          watched.page.getByRole("main", { name: RECORDS.detail }),
          /This project has no record "notes\.note\/gone"/,
        );
        await watched.close();
      });

      await t.step("the Records page in a narrow window", async () => {
        const watched = await openPage(browser, installation, {
          path: `${records}/notes.note/printer`,
          viewport: { width: 560, height: 800 },
        });
        await expectText(watched.page.getByRole("main", { name: RECORDS.detail }), /Written by/);
        const width = await watched.page.evaluate("document.documentElement.scrollWidth");
        assert.ok((width as number) <= 560, `the page is ${width} px wide`);
        await watched.assertAccessible("the Records page at 560 px");
        await watched.screenshot("records-narrow");
        await watched.close();
      });

      for (const colorScheme of ["light", "dark"] as const) {
        await t.step(`the Records page in ${colorScheme}`, async () => {
          const watched = await openPage(browser, installation, {
            colorScheme,
            path: `${records}/notes.note/printer`,
          });
          await expectText(watched.page.getByRole("main", { name: RECORDS.detail }), /Written by/);
          await watched.assertAccessible(`the Records page in ${colorScheme}`);
          await watched.screenshot(`records-${colorScheme}`);
          await watched.close();
        });
      }
    } finally {
      await installation.close();
      await browser.close();
    }
  },
);
