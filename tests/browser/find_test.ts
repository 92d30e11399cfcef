import assert from "node:assert/strict";
import {
  BROWSER_TEST,
  expectCount,
  expectGone,
  expectText,
  hasFocus,
  Installation,
  launchBrowser,
  type Locator,
  openPage,
  type Page,
  quietPackage,
  tabTo,
  until,
} from "./_browser.ts";
import { CHAT, EXTENSION, FIND, WINDOW } from "./_names.ts";

/** The href of the link that has the focus; "" when what has it is not a link. */
async function focusedHref(page: Page): Promise<string> {
  return await page.evaluate("document.activeElement?.getAttribute('href') ?? ''") as string;
}

/** The names of the rows a list shows, in order. */
async function rowNames(rows: Locator): Promise<string[]> {
  return (await rows.allTextContents()).map((text) => text.trim());
}

Deno.test(
  "the window's lists filter, move with arrow keys, and answer shortcuts",
  BROWSER_TEST,
  async (t) => {
    const browser = await launchBrowser();
    const installation = await Installation.create();
    try {
      const project = await installation.project("site");
      const packages = [
        { id: "hello", name: "Hello", description: "Says hello to whoever calls it." },
        { id: "mailer", name: "Mail", description: "Reads the mailbox, every hour." },
        {
          id: "poller",
          name: "Tracker",
          description: "Polls the issue tracker, every 15 minutes.",
        },
      ];
      for (const { id, name, description } of packages) {
        const folder = await installation.writePackage(
          quietPackage(id, { manifest: { name, description } }),
        );
        await installation.install(folder, project);
      }
      await installation.serve();
      const window = `/p/${encodeURIComponent(project)}`;
      const linkOf = (id: string) => `${window}/extensions/${encodeURIComponent(id)}`;

      await t.step("the Extensions list keeps the rows whose name, id or words match", async () => {
        const watched = await openPage(browser, installation, { path: `${window}/extensions` });
        const { page } = watched;
        const list = page.getByRole("list", { name: WINDOW.extensionList });
        const names = list.locator(".extension-name");
        await expectCount(names, 3);
        const filter = page.getByRole("searchbox", { name: FIND.extensionFilter });
        // `/` from anywhere in the window puts the focus in the filter.
        await page.keyboard.press("/");
        await until("the filter has the focus", () => hasFocus(filter));
        assert.equal(await filter.inputValue(), "", "the / is not typed into the filter");
        await page.keyboard.type("TRACK");
        await expectCount(names, 1);
        assert.deepEqual(await rowNames(names), ["Tracker"]);
        await expectText(page.getByRole("status").filter({ hasText: "of 3" }), "1 of 3 extensions");
        await filter.fill("mailer");
        assert.deepEqual(await rowNames(names), ["Mail"]);
        await filter.fill("every   MINUTES");
        await expectCount(names, 1);
        assert.deepEqual(await rowNames(names), ["Tracker"]);
        await filter.fill("every");
        await expectCount(names, 2);
        assert.deepEqual(await rowNames(names), ["Mail", "Tracker"]);
        await watched.screenshot("find-extensions-filtered-light");
        // Down goes to the first row kept, Enter opens it; the filter stays while rows change.
        await filter.press("ArrowDown");
        await until(
          "Mail's row has the focus",
          async () => await focusedHref(page) === linkOf("mailer"),
        );
        await page.keyboard.press("Enter");
        await until(
          "Mail's page is shown",
          () => new URL(page.url()).pathname === linkOf("mailer"),
        );
        await expectText(list.locator('a[aria-current="page"]'), "Mail");
        await page.keyboard.press("ArrowDown");
        await page.keyboard.press("Enter");
        await until(
          "Tracker's page is shown",
          () => new URL(page.url()).pathname === linkOf("poller"),
        );
        assert.equal(await filter.inputValue(), "every");
        await expectCount(names, 2);
        // Enter in the filter opens its first row.
        await filter.fill("hello");
        await filter.press("Enter");
        await until(
          "Hello's page is shown",
          () => new URL(page.url()).pathname === linkOf("hello"),
        );
        // Nothing matches: the list says so, with Clear.
        await filter.fill("zebra");
        await expectCount(names, 0);
        const none = page.locator(".list-column").getByText("No extensions match “zebra”.");
        await none.waitFor();
        await watched.assertAccessible("a filter that matches no extension");
        await watched.screenshot("find-extensions-no-match-light");
        await page.getByRole("button", { name: FIND.clear }).click();
        await expectCount(names, 3);
        assert.equal(await filter.inputValue(), "");
        assert.ok(await hasFocus(filter), "Clear puts the focus back in the filter");
        // Escape empties the filter, then leaves it.
        await filter.fill("mail");
        await expectCount(names, 1);
        await filter.press("Escape");
        await expectCount(names, 3);
        assert.ok(await hasFocus(filter));
        await filter.press("Escape");
        assert.ok(!(await hasFocus(filter)), "a second Escape leaves the filter");
        await watched.close();

        const dark = await openPage(browser, installation, {
          path: `${window}/extensions`,
          colorScheme: "dark",
        });
        await dark.page.getByRole("searchbox", { name: FIND.extensionFilter }).fill("every");
        await expectCount(dark.page.locator(".extension-name"), 2);
        await dark.assertAccessible("a filtered list (dark)");
        await dark.screenshot("find-extensions-filtered-dark");
        await dark.close();
      });

      await t.step("arrow keys move among the rows, and the list is one stop for Tab", async () => {
        const watched = await openPage(browser, installation, { path: linkOf("mailer") });
        const { page } = watched;
        const list = page.getByRole("list", { name: WINDOW.extensionList });
        const links = list.getByRole("link");
        await expectCount(links, 3);
        // Tab reaches the list at its current row, and only that row is in the tab order.
        const current = list.locator('a[aria-current="page"]');
        await tabTo(page, current);
        assert.deepEqual(
          await links.evaluateAll((all) => all.map((link) => link.getAttribute("tabindex"))),
          ["-1", "0", "-1"],
        );
        await page.keyboard.press("ArrowDown");
        assert.equal(await focusedHref(page), linkOf("poller"));
        await page.keyboard.press("ArrowDown");
        assert.equal(await focusedHref(page), linkOf("poller"), "Down on the last row stays");
        await page.keyboard.press("Home");
        assert.equal(await focusedHref(page), linkOf("hello"));
        await page.keyboard.press("End");
        assert.equal(await focusedHref(page), linkOf("poller"));
        await page.keyboard.press("ArrowUp");
        assert.equal(await focusedHref(page), linkOf("mailer"));
        await page.keyboard.press("ArrowUp");
        assert.equal(await focusedHref(page), linkOf("hello"));
        // Up from the first row goes to the filter; Down comes back.
        await page.keyboard.press("ArrowUp");
        assert.ok(await hasFocus(page.getByRole("searchbox", { name: FIND.extensionFilter })));
        await page.keyboard.press("ArrowDown");
        assert.equal(await focusedHref(page), linkOf("hello"));
        // Moving is not opening: the page shown is still Mail's, until Enter.
        assert.equal(new URL(page.url()).pathname, linkOf("mailer"));
        await page.keyboard.press("Enter");
        await until(
          "Hello's page is shown",
          () => new URL(page.url()).pathname === linkOf("hello"),
        );
        await expectText(list.locator('a[aria-current="page"]'), "Hello");
        assert.equal(await focusedHref(page), linkOf("hello"), "the opened row keeps the focus");
        // Tab leaves the list from any row, into the page shown, once that page is whole.
        await page.getByRole("main").getByRole("button", { name: EXTENSION.removeButton })
          .waitFor();
        await page.keyboard.press("ArrowDown");
        await page.keyboard.press("Tab");
        assert.ok(
          await page.evaluate("!document.activeElement?.closest('.list-column')"),
          "Tab from a row leaves the list",
        );
        // Shift+Tab comes back to the row that had the focus.
        await page.keyboard.press("Shift+Tab");
        assert.equal(await focusedHref(page), linkOf("mailer"));
        await watched.close();
      });

      await t.step("shortcuts go to areas and list themselves, never while typing", async () => {
        const watched = await openPage(browser, installation, { path: `${window}/extensions` });
        const { page } = watched;
        await expectCount(page.locator(".extension-name"), 3);
        await page.keyboard.press("g");
        await page.keyboard.press("c");
        await until("Chat is shown", () => new URL(page.url()).pathname === `${window}/chat`);
        await page.getByRole("heading", { name: "Chat", level: 1 }).waitFor();
        await page.keyboard.press("g");
        await page.keyboard.press("e");
        await until(
          "Extensions is shown",
          () => new URL(page.url()).pathname === `${window}/extensions`,
        );
        // A lone e is nothing.
        await page.keyboard.press("c");
        await page.keyboard.press("e");
        assert.equal(new URL(page.url()).pathname, `${window}/extensions`);

        // Typed into a field, the same keys are only letters.
        const filter = page.getByRole("searchbox", { name: FIND.extensionFilter });
        await filter.focus();
        await page.keyboard.type("g c ? /");
        assert.equal(await filter.inputValue(), "g c ? /");
        assert.equal(new URL(page.url()).pathname, `${window}/extensions`);
        await expectCount(page.getByRole("dialog"), 0);
        await filter.fill("");

        // ? lists the shortcuts; Escape closes it and the focus goes back.
        const button = page.getByRole("button", { name: FIND.shortcuts });
        await button.focus();
        await page.keyboard.press("?");
        const dialog = page.getByRole("dialog", { name: FIND.shortcuts });
        await dialog.waitFor();
        await expectText(dialog, /Go to Chat/);
        await expectText(dialog, /Filter the list/);
        assert.ok(await hasFocus(dialog.getByRole("button", { name: "Close" })));
        // While it is open, the window's shortcuts are still.
        await page.keyboard.press("g");
        await page.keyboard.press("c");
        assert.equal(new URL(page.url()).pathname, `${window}/extensions`);
        await watched.assertAccessible("the shortcuts dialog");
        await watched.screenshot("find-shortcuts-light");
        await page.keyboard.press("Escape");
        await expectGone(dialog);
        assert.ok(await hasFocus(button), "the focus goes back to what opened the dialog");
        // The navigator's button opens it too.
        await button.click();
        await dialog.waitFor();
        await dialog.getByRole("button", { name: "Close" }).click();
        await expectGone(dialog);
        await watched.close();

        const dark = await openPage(browser, installation, {
          path: `${window}/extensions`,
          colorScheme: "dark",
        });
        await expectCount(dark.page.locator(".extension-name"), 3);
        await dark.page.keyboard.press("?");
        await dark.page.getByRole("dialog", { name: FIND.shortcuts }).waitFor();
        await dark.assertAccessible("the shortcuts dialog (dark)");
        await dark.screenshot("find-shortcuts-dark");
        await dark.close();
      });

      await t.step(
        "Chat's list filters by title and agent, and moves with arrow keys",
        async () => {
          const watched = await openPage(browser, installation, { path: `${window}/chat` });
          const { page } = watched;
          await expectText(page.getByRole("main"), /Begin one with New conversation/);
          const keys: string[] = [];
          for (const text of ["Fix the login page", "Write the release notes", "Sort the inbox"]) {
            keys.push(
              await page.evaluate(async ([project, text]) => {
                const answer = await fetch("/api/chat/sessions", {
                  method: "POST",
                  headers: { "content-type": "application/json" },
                  body: JSON.stringify({ project, agent: "demo", text }),
                });
                return (await answer.json()).session.key as string;
              }, [project, text]),
            );
          }
          const rows = page.getByRole("list", { name: CHAT.conversations });
          const titles = page.locator(".chat-row-title");
          await expectCount(titles, 3);
          const filter = page.getByRole("searchbox", { name: FIND.chatFilter });
          await page.keyboard.press("/");
          await until("the filter has the focus", () => hasFocus(filter));
          await page.keyboard.type("RELEASE");
          await expectCount(titles, 1);
          await expectText(titles, /Write the release notes/);
          // The agent's name matches too.
          await filter.fill("demo");
          await expectCount(titles, 3);
          await filter.fill("the page");
          await expectCount(titles, 1);
          await expectText(titles, /Fix the login page/);
          await filter.fill("zebra");
          await expectCount(titles, 0);
          await page.locator(".list-column").getByText("No conversations match “zebra”.").waitFor();
          await watched.assertAccessible("a filter that matches no conversation");
          await watched.screenshot("find-chat-no-match-light");
          await page.getByRole("button", { name: FIND.clear }).click();
          await expectCount(titles, 3);

          // Down from the filter, then down again; Enter opens that conversation.
          await filter.press("ArrowDown");
          const newestFirst = [...keys].reverse().map((key) =>
            `${window}/chat/${encodeURIComponent(key)}`
          );
          assert.equal(await focusedHref(page), newestFirst[0]);
          await page.keyboard.press("ArrowDown");
          assert.equal(await focusedHref(page), newestFirst[1]);
          await page.keyboard.press("End");
          assert.equal(await focusedHref(page), newestFirst[2]);
          await page.keyboard.press("ArrowUp");
          await page.keyboard.press("Enter");
          await until(
            "the conversation is shown",
            () => new URL(page.url()).pathname === newestFirst[1],
          );
          await expectText(rows.locator('a[aria-current="page"]'), /Write the release notes/);
          // The agent's question takes the focus when it shows; then the person types.
          const question = page.getByRole("log", { name: CHAT.transcript })
            .getByRole("group", { name: CHAT.demoPermission });
          await until("the agent's question has the focus", () => hasFocus(question));
          // `/` typed into the next turn's box is a letter there, not the shortcut.
          const box = page.getByRole("textbox", { name: CHAT.nextTurnField });
          await box.focus();
          await page.keyboard.type("/g c");
          assert.equal(await box.inputValue(), "/g c");
          assert.ok(await hasFocus(box));
          assert.equal(new URL(page.url()).pathname, newestFirst[1]);
          await box.fill("");
          // The filter stays with Chat while the person goes to Extensions and back.
          await filter.fill("inbox");
          await expectCount(titles, 1);
          await page.getByRole("navigation", { name: "Project" }).getByRole("link", {
            name: "Extensions",
          })
            .click();
          await expectCount(page.locator(".extension-name"), 3);
          await page.getByRole("navigation", { name: "Project" }).getByRole("link", {
            name: "Chat",
          })
            .click();
          await expectCount(titles, 1);
          assert.equal(
            await page.getByRole("searchbox", { name: FIND.chatFilter }).inputValue(),
            "inbox",
          );
          await watched.screenshot("find-chat-filtered-light");
          await watched.close();
        },
      );

      await t.step("Ctrl+K finds places, extensions, conversations and actions", async () => {
        const watched = await openPage(browser, installation, { path: `${window}/extensions` });
        const { page } = watched;
        await expectCount(page.locator(".extension-name"), 3);
        const palette = page.getByRole("dialog", { name: FIND.palette });
        const field = palette.getByRole("combobox", { name: FIND.paletteField });
        /** The text of the option the field says is active. */
        const activeOption = async () => {
          const id = await field.getAttribute("aria-activedescendant");
          assert.ok(id, "an option is active");
          const option = palette.locator(`[id="${id}"]`);
          assert.equal(await option.getAttribute("role"), "option");
          assert.equal(await option.getAttribute("aria-selected"), "true");
          return (await option.textContent()) ?? "";
        };
        const open = async () => {
          await page.keyboard.press("Control+K");
          await palette.waitFor();
          await until("the palette's field has the focus", () => hasFocus(field));
        };

        await open();
        // Every group is there, and the conversations were read when it opened.
        await expectText(palette, /Sort the inbox/);
        for (const group of ["Actions", "Go to", "Extensions", "Conversations"]) {
          await palette.getByRole("group", { name: group }).waitFor();
        }
        await watched.assertAccessible("the command palette");
        await watched.screenshot("find-palette-light");
        // Words find an extension by its id; Enter opens its page and the palette goes.
        await field.fill("mailer");
        assert.match(await activeOption(), /^Mail/);
        await field.press("Enter");
        await expectGone(palette);
        await until(
          "Mail's page is shown",
          () => new URL(page.url()).pathname === linkOf("mailer"),
        );

        // Down and Up move the active option; the focus stays in the field.
        await open();
        await field.fill("the");
        const first = await activeOption();
        await field.press("ArrowDown");
        const second = await activeOption();
        assert.notEqual(second, first);
        await field.press("ArrowUp");
        assert.equal(await activeOption(), first);
        assert.ok(await hasFocus(field));
        await field.fill("inbox");
        assert.match(await activeOption(), /^Sort the inbox/);
        await field.press("Enter");
        await until("the conversation is shown", () => /\/chat\/[^/]+$/.test(page.url()));
        await expectText(
          page.getByRole("list", { name: CHAT.conversations }).locator('a[aria-current="page"]'),
          /Sort the inbox/,
        );

        // An action: Install opens the install dialog, in Extensions; Escape closes it.
        await open();
        await field.fill("install");
        await field.press("Enter");
        const install = page.getByRole("dialog", { name: "Install an extension" });
        await install.waitFor();
        assert.equal(new URL(page.url()).pathname, `${window}/extensions`);
        await page.keyboard.press("Escape");
        await expectGone(install);
        // New conversation, chosen with the mouse, opens its dialog in Chat.
        await open();
        await field.fill("new conv");
        await palette.getByRole("option", { name: /New conversation/ }).click();
        const begin = page.getByRole("dialog", { name: CHAT.newDialog });
        await begin.waitFor();
        assert.equal(new URL(page.url()).pathname, `${window}/chat`);
        await page.keyboard.press("Escape");
        await expectGone(begin);

        // From inside a field, Ctrl+K still opens it; nothing found says so; Escape closes it.
        await page.getByRole("searchbox", { name: FIND.chatFilter }).focus();
        await open();
        await field.fill("zebra");
        await expectText(palette, "Nothing matches “zebra”.");
        await watched.assertAccessible("a command palette that finds nothing");
        await page.keyboard.press("Escape");
        await expectGone(palette);
        assert.ok(await hasFocus(page.getByRole("searchbox", { name: FIND.chatFilter })));
        await watched.close();

        const dark = await openPage(browser, installation, {
          path: `${window}/extensions`,
          colorScheme: "dark",
        });
        await expectCount(dark.page.locator(".extension-name"), 3);
        await dark.page.keyboard.press("Control+K");
        const darkField = dark.page.getByRole("combobox", { name: FIND.paletteField });
        await darkField.waitFor();
        await darkField.fill("e");
        await dark.assertAccessible("the command palette (dark)");
        await dark.screenshot("find-palette-dark");
        await dark.close();
      });

      await t.step("in a narrow window the filter and the shortcuts' button stay", async () => {
        const watched = await openPage(browser, installation, {
          path: `${window}/extensions`,
          viewport: { width: 560, height: 800 },
        });
        const { page } = watched;
        const filter = page.getByRole("searchbox", { name: FIND.extensionFilter });
        await filter.fill("mail");
        await expectCount(page.locator(".extension-name"), 1);
        const box = await filter.boundingBox();
        assert.ok(box && box.width > 150, `the filter is wide enough to type in: ${box?.width}`);
        // The navigator shows only the button's glyph; its name stays.
        const button = page.getByRole("button", { name: FIND.shortcuts });
        assert.equal(
          await button.locator(".navigator-text").evaluate((text) =>
            text.getBoundingClientRect().width
          ),
          1,
        );
        await button.click();
        await page.getByRole("dialog", { name: FIND.shortcuts }).waitFor();
        await watched.assertAccessible("the shortcuts dialog in a narrow window");
        await watched.screenshot("find-narrow-light");
        await watched.close();
      });
    } finally {
      await installation.close();
      await browser.close();
    }
  },
);
