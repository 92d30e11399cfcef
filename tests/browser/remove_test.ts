import assert from "node:assert/strict";
import { join } from "node:path";
import {
  BROWSER_TEST,
  expectGone,
  expectText,
  hasFocus,
  Installation,
  launchBrowser,
  openPage,
  tabTo,
} from "./_browser.ts";
import { EXTENSION, WINDOW } from "./_names.ts";

/** A package that keeps a note in the project's memory. */
function notePackage(id: string) {
  return {
    id,
    handlers: [`${id}.note`],
    service: `import { memory } from "@sync/extension-api/service";
export default function register() {
  return { "${id}.note": async () => { await memory.write({ key: "${id}.note/1", title: "kept" }); } };
}`,
  };
}

Deno.test("Remove… takes a package out of the project", BROWSER_TEST, async (t) => {
  const browser = await launchBrowser();
  const installation = await Installation.create();
  try {
    const project = await installation.project("site");
    for (const id of ["first", "second"]) {
      await installation.install(await installation.writePackage(notePackage(id)), project);
      await installation.syncOk(["call", id, `${id}.note`, "--project", project]);
    }
    // Linked from its folder, whose manifest then breaks, as an author's edit can.
    const broken = await installation.writePackage(notePackage("third"));
    await installation.install(broken, project);
    await installation.syncOk(["call", "third", "third.note", "--project", project]);
    const manifest = join(broken, "manifest.json");
    const whole = await Deno.readTextFile(manifest);
    await Deno.writeTextFile(manifest, '{ id: "third" ');
    await installation.serve();
    const records = () => installation.syncOk(["records", "--project", project]);

    await t.step("with the mouse: Remove…, then Remove in the dialog", async () => {
      const path = `/p/${encodeURIComponent(project)}/extensions/first`;
      const watched = await openPage(browser, installation, { path });
      const { page } = watched;
      const list = page.getByRole("list", { name: WINDOW.extensionList });
      await expectText(list, "First");
      await page.getByRole("button", { name: EXTENSION.removeButton }).click();
      const dialog = page.getByRole("dialog", { name: EXTENSION.removeDialog });
      await dialog.waitFor();
      await expectText(dialog, /What stays/);
      await watched.assertAccessible("the remove dialog (light)");
      await watched.screenshot("remove-dialog-light");
      await dialog.getByRole("button", { name: EXTENSION.remove, exact: true }).click();
      await expectGone(dialog);
      await expectGone(list.getByRole("listitem").filter({ hasText: "First" }));
      await expectText(page.getByRole("status").filter({ hasText: "Removed" }), /Removed First/);
      assert.match(await records(), /first\.note\/1/, "its records stay");
      const listed = await installation.syncOk(["list", "--project", project]);
      assert.doesNotMatch(listed, /\bfirst\b/);
      await watched.close();
    });

    await t.step(
      "with the keyboard alone: Enter opens it, Escape cancels, Enter removes",
      async () => {
        const path = `/p/${encodeURIComponent(project)}/extensions/second`;
        const watched = await openPage(browser, installation, { path, colorScheme: "dark" });
        const { page } = watched;
        const list = page.getByRole("list", { name: WINDOW.extensionList });
        const open = page.getByRole("button", { name: EXTENSION.removeButton });
        await open.waitFor();
        await tabTo(page, open, 80);
        await page.keyboard.press("Enter");
        const dialog = page.getByRole("dialog", { name: EXTENSION.removeDialog });
        await dialog.waitFor();
        const remove = dialog.getByRole("button", { name: EXTENSION.remove, exact: true });
        assert.ok(await hasFocus(remove), "the primary action has the focus");
        await watched.assertAccessible("the remove dialog (dark)");
        await page.keyboard.press("Escape");
        await expectGone(dialog);
        assert.ok(await hasFocus(open), "the focus goes back to Remove…");
        await expectText(list, "Second");
        await page.keyboard.press("Enter");
        await dialog.waitFor();
        await page.keyboard.press("Enter");
        await expectGone(dialog);
        await expectGone(list.getByRole("listitem").filter({ hasText: "Second" }));
        assert.match(await records(), /second\.note\/1/, "its records stay");
        await watched.close();
      },
    );

    await t.step(
      "a linked package whose manifest broke says why, and Remove… still works",
      async () => {
        const path = `/p/${encodeURIComponent(project)}/extensions/third`;
        // Its page answers 404, which the browser logs, with what the page can still offer.
        const watched = await openPage(browser, installation, {
          path,
          expectedConsole: [/status of 404/],
        });
        const { page } = watched;
        const main = page.getByRole("main");
        await expectText(main.getByRole("heading", { level: 2 }), "third");
        const why = main.getByRole("region", { name: "Why it cannot be read" });
        await expectText(why, /Invalid manifest .*manifest\.json/);
        await expectText(why, /not valid JSON/);
        await expectText(why, `It is installed as a linked folder, ${broken}`);
        await expectText(why, /fix the problem there, and this page comes back by itself/);
        assert.doesNotMatch(await main.textContent() ?? "", /removed meanwhile/);
        await watched.assertAccessible("the page of a package that cannot be read");
        await watched.screenshot("remove-unreadable-light");
        // Fixed in its folder, the page comes back by itself; broken again, it says so again.
        await Deno.writeTextFile(manifest, whole);
        await expectText(main.getByRole("heading", { level: 2 }), "Third");
        await page.getByRole("region", { name: "Remove from this project" }).waitFor();
        await Deno.writeTextFile(manifest, '{ id: "third" ');
        await expectText(why, /not valid JSON/);
        await page.getByRole("button", { name: EXTENSION.removeButton }).click();
        const dialog = page.getByRole("dialog", { name: EXTENSION.removeDialog });
        await expectText(dialog, /third leaves this project's \.sync\/extensions\.json/);
        await dialog.getByRole("button", { name: EXTENSION.remove, exact: true }).click();
        await expectGone(dialog);
        const list = page.getByRole("list", { name: WINDOW.extensionList });
        await expectGone(list.getByRole("listitem").filter({ hasText: "third" }));
        await expectText(
          page.getByRole("status").filter({ hasText: "Removed" }),
          /third could not serve here, so no removed handler ran/,
        );
        await watched.screenshot("remove-unreadable-removed-light");
        assert.match(await records(), /third\.note\/1/, "its records stay");
        const listed = await installation.syncOk(["list", "--project", project]);
        assert.doesNotMatch(listed, /\bthird\b/);
        await watched.close();
      },
    );
  } finally {
    await installation.close();
    await browser.close();
  }
});
