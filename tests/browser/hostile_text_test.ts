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

/** A right-to-left override, which reverses what follows it until a pop (U+202C) that never comes. */
const OVERRIDE = "\u202E";

Deno.test(
  "a direction override in a package's text reorders only that text",
  BROWSER_TEST,
  async (t) => {
    const browser = await launchBrowser();
    const installation = await Installation.create();
    try {
      const project = await installation.project("site");
      const folder = await installation.writePackage(quietPackage("turner", {
        handlers: ["turner.write"],
        service: `import { memory } from "@sync/extension-api/service";
export default function register() {
  return {
    "turner.write": async () => {
      await memory.write({ key: "turner.note/${OVERRIDE}evil", title: "${OVERRIDE}Printer jam" });
      return null;
    },
  };
}`,
      }));
      await installation.install(folder, project);
      await installation.serve();
      const called = await installation.call(project, "turner", "turner.write");
      assert.equal(called.code, 0, called.stderr);

      await t.step(
        "a record named with U+202E: the words after its name stay in order",
        async () => {
          const watched = await openPage(browser, installation, {
            path: `/p/${encodeURIComponent(project)}/records`,
          });
          const { page } = watched;
          const facts = page.locator(".record-row-facts").first();
          await expectText(facts, /revision 1/);
          // Where the name ends, and where the word "revision" after it is drawn.
          const [nameRight, revisionLeft, revisionRight] = await page.evaluate(`(() => {
          const facts = document.querySelector(".record-row-facts");
          const name = facts.querySelector(".record-row-name");
          const text = [...facts.childNodes].find((node) =>
            node.nodeType === Node.TEXT_NODE && node.textContent.includes("revision"));
          const at = text.textContent.indexOf("revision");
          const leftOf = (from, to) => {
            const range = document.createRange();
            range.setStart(text, from);
            range.setEnd(text, to);
            return range.getBoundingClientRect().left;
          };
          return [name.getBoundingClientRect().right, leftOf(at, at + 1), leftOf(at + 7, at + 8)];
        })()`) as number[];
          assert.ok(
            revisionLeft >= nameRight - 1,
            `"revision" starts after the name (${revisionLeft} >= ${nameRight})`,
          );
          assert.ok(revisionRight > revisionLeft, "and reads left to right");
          await watched.screenshot("record-name-override");
          await watched.assertAccessible("a record named with a direction override");
          await watched.close();
        },
      );
    } finally {
      await installation.close();
      await browser.close();
    }
  },
);
