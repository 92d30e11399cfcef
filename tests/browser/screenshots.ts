/**
 * `deno task screenshots`: sets up a demo installation (the example packages
 * of `extensions/` installed in a temp project, with a few receipts), serves
 * it, and writes a PNG of each page of the window, light and dark, at
 * 1280×800, into `docs/screenshots/`. Chat shows the session `extensions/triage`
 * orders from the demo agent, waiting for its permission; the command palette
 * (Ctrl+K) finds it.
 *
 * It runs with `-A`: playwright, which drives the browser, reads `/proc`
 * paths that Deno grants only with every permission.
 *
 * @module
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Installation, launchBrowser, openPage, type WatchedPage } from "./_browser.ts";
import { examplePath, setUpExamples } from "./_demo.ts";
import {
  CHAT,
  EXTENSION,
  FIND,
  INSTALL,
  RECEIPT_ID_ATTRIBUTE,
  RECORDS,
  START,
  WINDOW,
} from "./_names.ts";

const OUT_DIR = fileURLToPath(new URL("../../docs/screenshots/", import.meta.url));

async function shoot(watched: WatchedPage, name: string): Promise<void> {
  const path = join(OUT_DIR, `${name}.png`);
  // Let transitions finish, so the picture is of the page at rest.
  await watched.page.evaluate("document.getAnimations().forEach((a) => a.finish?.())")
    .catch(() => {});
  await watched.page.screenshot({ path });
  console.log(`Wrote ${path}`);
}

if (import.meta.main) {
  await Deno.mkdir(OUT_DIR, { recursive: true });
  const browser = await launchBrowser();
  const installation = await Installation.create();
  try {
    const site = await installation.project("site");
    const notes = await installation.project("notes");
    await setUpExamples(installation.home, site);
    await installation.serve();
    await installation.syncOk(["open", "--project", notes]);
    await installation.syncOk(["open", "--project", site]);
    const window = `/p/${encodeURIComponent(site)}/extensions`;
    // Triage orders a session from the demo agent for an open issue; the serve performs it.
    await installation.syncOk(["install", examplePath("triage"), "--project", site, "--approve"]);
    await installation.syncOk([
      "write",
      "--project",
      site,
      "--key",
      "issues.issue/7",
      "--title",
      "Saving is slow",
      "--fields",
      '{"number":7,"state":"open"}',
      "--content",
      "Saving a large note takes a minute.",
    ]);
    const ordered = JSON.parse(
      await installation.syncOk(["call", "triage", "triage.sweep", "--project", site]),
    ) as { ordered: { work: string }[] };
    const chat = `/p/${encodeURIComponent(site)}/chat/${ordered.ordered[0].work}`;

    for (const colorScheme of ["light", "dark"] as const) {
      const start = await openPage(browser, installation, { colorScheme });
      await start.page.getByRole("region", { name: START.recentHeading }).getByRole("link")
        .nth(1).waitFor();
      await shoot(start, `start-${colorScheme}`);
      await start.close();

      const extension = await openPage(browser, installation, {
        colorScheme,
        path: `${window}/issues`,
      });
      await extension.page.locator(`[${RECEIPT_ID_ATTRIBUTE}]`).first().waitFor();
      await shoot(extension, `extension-${colorScheme}`);
      await extension.close();

      const screen = await openPage(browser, installation, {
        colorScheme,
        path: `/p/${encodeURIComponent(site)}/screen/issues`,
        expectedConsole: [/status of 4\d\d/],
      });
      await screen.page.locator(".screen-state[data-state=active]").waitFor();
      await screen.page.frameLocator("iframe.screen-frame").getByRole("button", {
        name: "Check now",
      })
        .click();
      await screen.page.frameLocator("iframe.screen-frame").locator("p.error").waitFor();
      await shoot(screen, `screen-${colorScheme}`);
      await screen.close();

      const remove = await openPage(browser, installation, {
        colorScheme,
        path: `${window}/hello`,
      });
      await remove.page.locator(`[${RECEIPT_ID_ATTRIBUTE}]`).nth(2).waitFor();
      await remove.page.getByRole("button", { name: EXTENSION.removeButton }).click();
      await remove.page.getByRole("dialog", { name: EXTENSION.removeDialog }).waitFor();
      await shoot(remove, `remove-${colorScheme}`);
      await remove.close();

      const conversation = await openPage(browser, installation, { colorScheme, path: chat });
      await conversation.page.getByRole("group", { name: CHAT.demoPermission }).waitFor();
      await shoot(conversation, `chat-${colorScheme}`);
      await conversation.close();

      const records = await openPage(browser, installation, {
        colorScheme,
        path: `/p/${encodeURIComponent(site)}/records/issues.issue/7`,
      });
      await records.page.getByRole("main", { name: RECORDS.detail }).getByRole("heading", {
        name: "Written by",
      })
        .waitFor();
      await records.page.locator(".record-row").nth(3).waitFor();
      await shoot(records, `records-${colorScheme}`);
      await records.close();

      const install = await openPage(browser, installation, { colorScheme, path: window });
      await install.page.getByRole("list", { name: WINDOW.extensionList }).waitFor();
      await install.page.getByRole("button", { name: INSTALL.openButton }).click();
      const dialog = install.page.getByRole("dialog", { name: INSTALL.dialog });
      await dialog.getByLabel(INSTALL.pathField).fill(examplePath("tail"));
      await dialog.getByRole("button", { name: INSTALL.readButton }).click();
      await dialog.getByRole("button", { name: INSTALL.approve, exact: true }).waitFor();
      await shoot(install, `install-${colorScheme}`);
      await install.close();

      const palette = await openPage(browser, installation, { colorScheme, path: window });
      await palette.page.getByRole("list", { name: WINDOW.extensionList }).waitFor();
      await palette.page.keyboard.press("Control+K");
      const field = palette.page.getByRole("combobox", { name: FIND.paletteField });
      await field.fill("issue");
      await palette.page.getByRole("group", { name: "Conversations" }).waitFor();
      await shoot(palette, `palette-${colorScheme}`);
      await palette.close();
    }
  } finally {
    await installation.close();
    await browser.close();
  }
}
