import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { packageArchive } from "../internal/cli.ts";
import {
  BROWSER_TEST,
  expectGone,
  expectText,
  gatePackage,
  hasFocus,
  Installation,
  launchBrowser,
  openPage,
  quietPackage,
  tabTo,
  until,
} from "./_browser.ts";
import { INSTALL, WINDOW } from "./_names.ts";

Deno.test("installing from the window", BROWSER_TEST, async (t) => {
  const browser = await launchBrowser();
  const installation = await Installation.create();
  try {
    const project = await installation.project("site");
    await installation.serve();
    const path = `/p/${encodeURIComponent(project)}/extensions`;
    const listed = () => installation.syncOk(["list", "--project", project]);

    await t.step(
      "with the mouse: a folder's card, Approve, and its lamp breathes while it runs",
      async () => {
        const folder = await installation.writePackage(
          gatePackage("gate", { permissions: ["background", "net:tracker.example.com"] }),
        );
        const watched = await openPage(browser, installation, { path });
        const { page } = watched;
        await page.getByRole("button", { name: INSTALL.openButton }).click();
        const dialog = page.getByRole("dialog", { name: INSTALL.dialog });
        await dialog.waitFor();
        await dialog.getByLabel(INSTALL.pathField).click();
        await dialog.getByLabel(INSTALL.pathField).fill(folder);
        await dialog.getByRole("button", { name: INSTALL.readButton }).click();
        const asks = dialog.getByRole("region", { name: INSTALL.asksHeading });
        await expectText(asks, /net:tracker\.example\.com/);
        await watched.assertAccessible("the install card (light)");
        await watched.screenshot("install-card-light");
        await dialog.getByRole("button", { name: INSTALL.approve, exact: true }).click();
        await expectGone(dialog);
        const result = page.getByRole("status").filter({ hasText: "Installed" });
        await expectText(
          result,
          /Installed gate 1\.0\.0 — approved: background, net:tracker\.example\.com/,
        );
        // Each permission approved is one unit in code style, wrapped as a whole.
        assert.deepEqual(await result.locator("code").allTextContents(), [
          "background",
          "net:tracker.example.com",
        ]);
        await page.waitForURL((url) => url.pathname === `${path}/gate`);
        assert.match(await listed(), /\bgate\b/);

        const row = page.getByRole("list", { name: WINDOW.extensionList }).getByRole("listitem")
          .filter({ hasText: "Gate" });
        const lamp = row.locator(".lamp-wrap");
        await expectText(lamp, "ready");
        const gate = { gate: "after-install" };
        const waiting = installation.call(project, "gate", "gate.wait", gate);
        try {
          await until(
            "a breathing lamp",
            async () => /\blamp-breathing\b/.test(await lamp.getAttribute("class") ?? ""),
          );
          await expectText(lamp, "running now");
        } finally {
          const opened = await installation.call(project, "gate", "gate.open", gate);
          assert.equal(opened.code, 0, opened.stderr);
          assert.equal((await waiting).code, 0);
        }
        await until(
          "a steady lamp",
          async () => /\blamp-steady\b/.test(await lamp.getAttribute("class") ?? ""),
        );
        // Said while its page is shown; once the person moves on, it goes.
        await expectText(result, /Installed gate 1\.0\.0/);
        await page.getByRole("navigation").getByRole("link", { name: WINDOW.extensionsArea })
          .click();
        await page.waitForURL((url) => url.pathname === path);
        await expectGone(result);
        await watched.close();
      },
    );

    await t.step(
      "with the keyboard alone: Escape cancels, Enter reads, Enter approves",
      async () => {
        const folder = await installation.writePackage(quietPackage("keys"));
        const watched = await openPage(browser, installation, { path, colorScheme: "dark" });
        const { page } = watched;
        const open = page.getByRole("button", { name: INSTALL.openButton });
        await open.waitFor();
        await tabTo(page, open);
        await page.keyboard.press("Enter");
        const dialog = page.getByRole("dialog", { name: INSTALL.dialog });
        await dialog.waitFor();
        const field = dialog.getByLabel(INSTALL.pathField);
        assert.ok(await hasFocus(field), "the path field has the focus");
        await page.keyboard.press("Escape");
        await expectGone(dialog);
        assert.ok(await hasFocus(open), "the focus goes back to Install…");
        await page.keyboard.press("Enter");
        await dialog.waitFor();
        await page.keyboard.type(folder);
        await page.keyboard.press("Enter");
        const approve = dialog.getByRole("button", { name: INSTALL.approve, exact: true });
        await approve.waitFor();
        assert.ok(await hasFocus(approve), "Approve, the primary action, has the focus");
        await watched.assertAccessible("the install card (dark)");
        await page.keyboard.press("Enter");
        await expectGone(dialog);
        await expectText(page.getByRole("list", { name: WINDOW.extensionList }), "Keys");
        assert.match(await listed(), /\bkeys\b/);
        await watched.close();
      },
    );

    await t.step("an archive chosen in the file input is uploaded and installed", async () => {
      const archive = join(installation.root, "packed.tgz");
      await Deno.writeFile(
        archive,
        packageArchive({
          id: "packed",
          version: "1.0.0",
          permissions: ["background"],
          handlers: ["packed.run"],
          service: `export default function register() { return { "packed.run": () => 1 }; }`,
        }),
      );
      const watched = await openPage(browser, installation, { path });
      const { page } = watched;
      await page.getByRole("button", { name: INSTALL.openButton }).click();
      const dialog = page.getByRole("dialog", { name: INSTALL.dialog });
      await dialog.getByLabel(INSTALL.archiveField).setInputFiles(archive);
      await dialog.getByRole("button", { name: INSTALL.readButton }).click();
      await dialog.getByRole("button", { name: INSTALL.approve, exact: true }).click();
      await expectGone(dialog);
      await expectText(page.getByRole("list", { name: WINDOW.extensionList }), "Packed");
      assert.match(await listed(), /\bpacked\b/);
      await watched.close();
    });

    await t.step("a program's command line approved is one unit, on one line", async () => {
      const tail = fileURLToPath(new URL("../../extensions/tail/", import.meta.url));
      const watched = await openPage(browser, installation, { path });
      const { page } = watched;
      await page.getByRole("button", { name: INSTALL.openButton }).click();
      const dialog = page.getByRole("dialog", { name: INSTALL.dialog });
      await dialog.getByLabel(INSTALL.pathField).fill(tail);
      await dialog.getByRole("button", { name: INSTALL.readButton }).click();
      await dialog.getByRole("button", { name: INSTALL.approve, exact: true }).click();
      await expectGone(dialog);
      const result = page.getByRole("status").filter({ hasText: "Installed tail" });
      await expectText(result, /approved: host\.processes, process:tail tail -n 100 -F --/);
      const units = result.locator("code");
      assert.deepEqual(await units.allTextContents(), [
        "host.processes",
        "process:tail tail -n 100 -F --",
      ]);
      const [line, program] = await units.last().evaluate((element) => [
        parseFloat(element.ownerDocument.defaultView!.getComputedStyle(element).lineHeight),
        element.getBoundingClientRect().height,
      ]);
      assert.ok(program < line * 1.5, `the command line is on one line: ${program}px high`);
      // Dismiss is as wide as its word, not the list column's width.
      const dismiss = await result.getByRole("button", { name: "Dismiss" }).boundingBox();
      const column = await result.boundingBox();
      assert.ok(dismiss && column);
      assert.ok(dismiss.width < column.width / 2, `Dismiss is ${dismiss.width}px wide`);
      await watched.screenshot("install-result-program-light");
      await watched.close();
    });
  } finally {
    await installation.close();
    await browser.close();
  }
});
