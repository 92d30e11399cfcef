import assert from "node:assert/strict";
import { join } from "node:path";
import {
  BROWSER_TEST,
  CHECK_WAIT_MS,
  expectGone,
  expectText,
  focusedText,
  Installation,
  launchBrowser,
  openPage,
  quietPackage,
  tabTo,
  until,
} from "./_browser.ts";
import { CHAT, FIRST_RUN, INSTALL } from "./_names.ts";

/** The bundled hello package's manifest, as the install card's examples must show it. */
const HELLO = JSON.parse(
  await Deno.readTextFile(new URL("../../extensions/hello/manifest.json", import.meta.url)),
) as { name: string; description: string };

Deno.test(
  "a first run: empty lists carry their button, folders are chosen by browsing, examples by name",
  BROWSER_TEST,
  async (t) => {
    const browser = await launchBrowser();
    const installation = await Installation.create();
    try {
      // The person's home is the installation's temp folder: it holds `projects/`, `packages/`
      // and a hidden folder, and nothing of the machine outside it.
      installation.personHome = await Deno.realPath(installation.root);
      const site = await installation.project("site");
      await Deno.mkdir(join(installation.root, ".hidden-stuff"));
      const quiet = await installation.writePackage(quietPackage("quiet"));
      await installation.serve();
      const window = `/p/${encodeURIComponent(site)}`;

      await t.step(
        "the empty start page's button opens the folder browser, which opens a project",
        async () => {
          const watched = await openPage(browser, installation);
          const { page } = watched;
          await expectText(page.getByRole("region", { name: "Recent" }), /No project opened yet/);
          await watched.assertAccessible("the start page with no projects");
          await watched.screenshot("start-empty-light");
          await page.getByRole("button", { name: FIRST_RUN.chooseProject }).click();
          const browse = page.getByRole("region", { name: FIRST_RUN.projectBrowser });
          const folders = browse.getByRole("list", { name: FIRST_RUN.folders });
          await expectText(folders, /projects/);
          // Hidden folders only when asked.
          assert.doesNotMatch(await folders.innerText(), /\.hidden-stuff/);
          await browse.getByLabel(FIRST_RUN.hidden).check();
          await expectText(folders, /\.hidden-stuff/);
          await browse.getByLabel(FIRST_RUN.hidden).uncheck();
          await until(
            "hidden folders hidden again",
            async () => !/\.hidden-stuff/.test(await folders.innerText()),
          );
          // At home, there is no way up.
          assert.ok(
            await browse.getByRole("button", { name: FIRST_RUN.up, exact: true }).isDisabled(),
          );
          await folders.getByRole("button", { name: "projects", exact: true }).click();
          await expectText(browse.getByRole("heading"), /projects/);
          await expectText(folders, /site/);
          await watched.assertAccessible("the start page's folder browser");
          await watched.screenshot("start-folder-browser-light");
          await browse.getByRole("button", { name: FIRST_RUN.up, exact: true }).click();
          await expectText(folders, /packages/);
          await folders.getByRole("button", { name: "projects", exact: true }).click();
          await folders.getByRole("button", { name: "site", exact: true }).click();
          await expectText(browse.getByRole("heading"), site);
          await browse.getByRole("button", { name: FIRST_RUN.openThis }).click();
          await page.waitForURL((url) => url.pathname === `${window}/extensions`);
          await expectText(page.getByRole("status").filter({ hasText: "Opened" }), /Opened site/);
          await watched.close();
        },
      );

      await t.step(
        "the empty project's button opens the install dialog, which offers the examples by name",
        async () => {
          const watched = await openPage(browser, installation, { path: `${window}/extensions` });
          const { page } = watched;
          await page.getByRole("button", { name: FIRST_RUN.install }).click();
          const dialog = page.getByRole("dialog", { name: INSTALL.dialog });
          const examples = dialog.getByRole("region", { name: FIRST_RUN.examples });
          await expectText(examples, HELLO.name);
          await expectText(examples, HELLO.description);
          await watched.assertAccessible("the install dialog with the bundled examples");
          await watched.screenshot("install-examples-light");
          // One click reads the example's card.
          await examples.getByRole("button", { name: `Install ${HELLO.name}` }).click();
          await dialog.getByRole("region", { name: INSTALL.asksHeading }).waitFor({
            timeout: CHECK_WAIT_MS,
          });
          await dialog.getByRole("button", { name: INSTALL.approve, exact: true }).click();
          await expectGone(dialog);
          await page.waitForURL((url) => url.pathname === `${window}/extensions/hello`);
          assert.match(await installation.syncOk(["list", "--project", site]), /\bhello\b/);
          await watched.close();
        },
      );

      await t.step(
        "the install dialog's Browse… chooses a package folder by going through folders",
        async () => {
          const watched = await openPage(browser, installation, {
            path: `${window}/extensions`,
            colorScheme: "dark",
          });
          const { page } = watched;
          await page.getByRole("button", { name: INSTALL.openButton }).click();
          const dialog = page.getByRole("dialog", { name: INSTALL.dialog });
          await dialog.getByRole("button", { name: FIRST_RUN.browse }).click();
          const browse = dialog.getByRole("region", { name: FIRST_RUN.packageBrowser });
          const folders = browse.getByRole("list", { name: FIRST_RUN.folders });
          await folders.getByRole("button", { name: "packages", exact: true }).click();
          const name = quiet.split("/").at(-1)!;
          await folders.getByRole("button", { name, exact: true }).click();
          await expectText(browse.getByRole("heading"), quiet);
          await watched.assertAccessible("the install dialog's folder browser (dark)");
          await watched.screenshot("install-folder-browser-dark");
          // The bundled examples are a place to start from too.
          await browse.getByRole("button", { name: "Bundled examples" }).click();
          await expectText(folders, /hello/);
          await browse.getByRole("button", { name: "Home" }).click();
          await folders.getByRole("button", { name: "packages", exact: true }).click();
          await folders.getByRole("button", { name, exact: true }).click();
          await browse.getByRole("button", { name: FIRST_RUN.useThis }).click();
          await dialog.getByRole("region", { name: INSTALL.asksHeading }).waitFor({
            timeout: CHECK_WAIT_MS,
          });
          await dialog.getByRole("button", { name: INSTALL.approve, exact: true }).click();
          await page.waitForURL((url) => url.pathname === `${window}/extensions/quiet`);
          await watched.close();
        },
      );

      await t.step(
        "at 560 px the folder browser and the examples fit, keyboard first",
        async () => {
          const watched = await openPage(browser, installation, {
            viewport: { width: 560, height: 800 },
          });
          const { page } = watched;
          // The keyboard alone: Tab to Browse…, Enter, and Tab to a folder.
          await tabTo(page, page.getByRole("button", { name: FIRST_RUN.browse }));
          await page.keyboard.press("Enter");
          const browse = page.getByRole("region", { name: FIRST_RUN.projectBrowser });
          const projects = browse.getByRole("list", { name: FIRST_RUN.folders })
            .getByRole("button", { name: "projects", exact: true });
          await tabTo(page, projects);
          await page.keyboard.press("Enter");
          // Entering a folder puts the focus on its name, at the top of what it lists.
          await until(
            "the folder's name has the focus",
            async () => /projects/.test(await focusedText(page)),
          );
          await watched.assertAccessible("the folder browser at 560 px");
          await watched.screenshot("start-folder-browser-narrow-light");
          assert.ok(
            await page.evaluate("document.documentElement.scrollWidth <= innerWidth"),
            "nothing is wider than the window",
          );
          await page.goto(`${installation.origin}${window}/extensions`);
          await page.getByRole("button", { name: INSTALL.openButton }).click();
          const dialog = page.getByRole("dialog", { name: INSTALL.dialog });
          await expectText(dialog.getByRole("region", { name: FIRST_RUN.examples }), HELLO.name);
          await watched.assertAccessible("the install dialog's examples at 560 px");
          await watched.screenshot("install-examples-narrow-light");
          await watched.close();
        },
      );

      await t.step("a screen that is not there links to where to go", async () => {
        const watched = await openPage(browser, installation, { path: `${window}/screen/nothere` });
        const { page } = watched;
        const main = page.getByRole("main");
        await expectText(main, /nothere is not installed in this project/);
        await watched.assertAccessible("a screen of a package not installed");
        await main.getByRole("link", { name: "Go to the Extensions list" }).click();
        await page.waitForURL((url) => url.pathname === `${window}/extensions`);
        await page.goto(`${installation.origin}${window}/screen/hello`);
        await expectText(page.getByRole("main"), /Hello has no screen/);
        await page.getByRole("main").getByRole("link", { name: "Go to Hello's page" }).click();
        await page.waitForURL((url) => url.pathname === `${window}/extensions/hello`);
        await watched.close();
      });

      await t.step("the empty Chat's button begins a conversation", async () => {
        const watched = await openPage(browser, installation, { path: `${window}/chat` });
        const { page } = watched;
        await expectText(page.getByRole("region", { name: "Chat" }), /No conversations/);
        await watched.assertAccessible("the empty Chat");
        await watched.screenshot("chat-empty-light");
        await page.getByRole("button", { name: FIRST_RUN.begin }).click();
        await page.getByRole("dialog", { name: CHAT.newDialog }).waitFor();
        await watched.close();
      });
    } finally {
      await installation.close();
      await browser.close();
    }
  },
);
