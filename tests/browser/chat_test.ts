import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
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
  tabTo,
  until,
} from "./_browser.ts";
import { examplePath } from "./_demo.ts";
import { CHAT } from "./_names.ts";

const DEMO_AGENT = fileURLToPath(
  new URL("../../runtime/agents/demo/demo_agent.ts", import.meta.url),
);

Deno.test("Chat shows a conversation with the demo agent live", BROWSER_TEST, async (t) => {
  const browser = await launchBrowser();
  const installation = await Installation.create();
  try {
    const project = await installation.project("site");
    // The demo agent, taking 3 s to start, as a program that loads a while and says so.
    await installation.syncOk([
      "agents",
      "add",
      "slow",
      "--command",
      Deno.execPath(),
      "--arg=run",
      "--arg=--allow-net=127.0.0.1",
      `--arg=${DEMO_AGENT}`,
      "--arg=--slow-start",
    ]);
    await installation.serve();
    const chat = `/p/${encodeURIComponent(project)}/chat`;

    /** Begins a conversation from the list's button and answers its key, from the address. */
    const begin = async (page: Page, text: string, agent = "demo") => {
      await page.getByRole("button", { name: CHAT.newButton }).click();
      const dialog = page.getByRole("dialog", { name: CHAT.newDialog });
      await dialog.getByLabel(CHAT.agentField, { exact: true }).selectOption(agent);
      await dialog.getByLabel(CHAT.firstTurnField, { exact: true }).fill(text);
      await dialog.getByRole("button", { name: CHAT.begin }).click();
      await until("the address names the conversation", () => /\/chat\/[^/]+$/.test(page.url()));
      return decodeURIComponent(new URL(page.url()).pathname.split("/").at(-1)!);
    };

    await t.step("the stream arrives live, and a permission prompt is answered", async () => {
      const watched = await openPage(browser, installation, { path: chat });
      const { page } = watched;
      await expectText(page.getByRole("main"), /Begin one with New conversation/);
      await page.evaluate("window.__marker = 'no reload'");
      const key = await begin(page, "Say hello to the *site*");
      const log = page.getByRole("log", { name: CHAT.transcript });
      const prompt = log.getByRole("group", { name: CHAT.demoPermission });
      await prompt.waitFor();
      // While the agent waits, the focus is on its question, and Send says why it is closed.
      await until("the prompt has the focus", () => hasFocus(prompt));
      const send = page.getByRole("button", { name: CHAT.send });
      assert.equal(await send.getAttribute("aria-disabled"), "true");
      await expectText(page.locator("#turn-reason"), /waits for your answer/);
      await expectText(log, /Read the prompt/);
      await watched.assertAccessible("a conversation waiting for a permission");
      await watched.screenshot("chat-waiting-light");

      await prompt.getByRole("button", { name: "Allow" }).click();
      await expectText(prompt, /Answered: Allow/);
      // The button that answered went; the prompt, which now says the answer, has the focus.
      await until("the answered prompt keeps the focus", () => hasFocus(prompt));
      // The reply quotes the prompt; its markdown is drawn as elements, never as HTML.
      await expectText(log, /You said: «Say hello to the site»/);
      await expectText(log.locator("em"), "site");
      await expectText(log, /Turn ended/);
      // The row is in the first group, Conversations; its state word went when the turn ended.
      const rows = page.getByRole("list", { name: CHAT.conversations });
      await expectText(rows.locator('a[aria-current="page"]'), /Say hello/);
      await expectCount(rows.getByText("running"), 0);
      assert.equal(await page.evaluate("window.__marker"), "no reload");

      await page.getByRole("button", { name: CHAT.keep }).click();
      await expectText(
        page.getByRole("status").filter({ hasText: "Kept" }),
        `chat.conversation/${key}`,
      );
      const records = await installation.syncOk([
        "records",
        "--project",
        project,
        "--kind",
        "chat.conversation",
      ]);
      assert.match(records, new RegExp(`chat\\.conversation/${key}`));
      await watched.assertAccessible("an ended conversation");
      await watched.screenshot("chat-ended-light");
      await watched.close();

      const dark = await openPage(browser, installation, {
        path: `${chat}/${encodeURIComponent(key)}`,
        colorScheme: "dark",
      });
      await expectText(dark.page.getByRole("log", { name: CHAT.transcript }), /Turn ended/);
      await dark.assertAccessible("an ended conversation (dark)");
      await dark.screenshot("chat-ended-dark");
      await dark.close();
    });

    await t.step(
      "an answer that cannot reach Sync says so until the prompt closes; Deny keeps the focus",
      async () => {
        const watched = await openPage(browser, installation, {
          path: chat,
          expectedConsole: [/ERR_CONNECTION_REFUSED/],
        });
        const { page } = watched;
        await begin(page, "Write a line about the site");
        const log = page.getByRole("log", { name: CHAT.transcript });
        const first = log.getByRole("group", { name: CHAT.demoPermission }).last();
        await until("the prompt has the focus", () => hasFocus(first));
        // Sync does not answer this one answer, as when serve is stopped.
        const answers = "**/api/chat/sessions/*/permission";
        await page.route(answers, (route) => route.abort("connectionrefused"));
        await first.getByRole("button", { name: "Allow" }).click();
        await expectText(first.getByRole("alert"), /Sync is not answering/);
        await page.unroute(answers);
        // Cancelling the turn closes the prompt, and the error about answering it goes.
        await page.getByRole("button", { name: CHAT.cancel }).click();
        await expectText(first, /Cancelled with the turn/);
        await expectCount(first.getByRole("alert"), 0);
        await watched.screenshot("chat-cancelled-prompt-light");
        // The next turn asks again; with the keyboard alone Deny answers it.
        const box = page.getByRole("textbox", { name: CHAT.nextTurnField });
        await box.fill("Go on with the line");
        await box.press("Enter");
        await expectCount(log.getByRole("group", { name: CHAT.demoPermission }), 2);
        const second = log.getByRole("group", { name: CHAT.demoPermission }).last();
        await until("the new prompt has the focus", () => hasFocus(second));
        await expectCount(page.getByRole("alert"), 0);
        await tabTo(page, second.getByRole("button", { name: "Deny" }));
        await page.keyboard.press("Enter");
        await expectText(second, /Answered: Deny/);
        await until("the answered prompt keeps the focus", () => hasFocus(second));
        await watched.assertAccessible("a conversation after Deny");
        await watched.screenshot("chat-after-deny-light");
        await watched.close();
      },
    );

    await t.step(
      "after a restart the conversation is interrupted, and Continue goes on",
      async () => {
        const first = await openPage(browser, installation, { path: chat });
        const key = await begin(first.page, "Look at the project");
        await first.page.getByRole("group", { name: CHAT.demoPermission }).waitFor();
        await first.close();

        await installation.restart();
        const watched = await openPage(browser, installation, {
          path: `${chat}/${encodeURIComponent(key)}`,
        });
        const { page } = watched;
        await expectText(page.getByRole("main"), /nothing resumes by itself/i);
        await expectText(
          page.getByRole("list", { name: CHAT.conversations }).locator('a[aria-current="page"]'),
          /interrupted/,
        );
        await watched.screenshot("chat-interrupted-light");
        await page.getByRole("button", { name: CHAT.continue }).click();
        await expectText(
          page.getByRole("status").filter({ hasText: "Continued" }),
          /Type the next turn/,
        );
        const box = page.getByRole("textbox", { name: CHAT.nextTurnField });
        assert.ok(await hasFocus(box), "Continue puts the focus in the box for the next turn");
        await page.keyboard.type("Go on, no-permission this time");
        await page.keyboard.press("Enter");
        const log = page.getByRole("log", { name: CHAT.transcript });
        // The next turn is the person's own words, and the agent took it as a new turn.
        await expectText(
          log.getByRole("article", { name: CHAT.personSaid }).last(),
          "Go on, no-permission this time",
        );
        await expectText(log, /You were not asked\./);
        await expectCount(log.getByText("Turn ended"), 1);
        await watched.assertAccessible("a continued conversation");
        await watched.close();
      },
    );

    /** Defines the agent `later`: the demo agent, or a program that is not there. */
    const defineLater = async (installed: boolean) => {
      await installation.syncOk(
        installed
          ? [
            "agents",
            "add",
            "later",
            "--command",
            Deno.execPath(),
            "--arg=run",
            "--arg=--allow-net=127.0.0.1",
            `--arg=${DEMO_AGENT}`,
          ]
          : ["agents", "add", "later", "--command", "/nonexistent/sync-test-agent"],
      );
    };

    await t.step(
      "a failed turn says why once, and what Continue and the box do now",
      async () => {
        const watched = await openPage(browser, installation, { path: chat });
        const { page } = watched;
        await begin(page, "no-permission crash now");
        const log = page.getByRole("log", { name: CHAT.transcript });
        const failure = log.getByRole("article", { name: CHAT.failure });
        await failure.waitFor();
        // The agent's stderr line is shown once: in the message, or under its heading.
        await until(
          "the crash's stderr line is shown",
          async () =>
            (await failure.textContent() ?? "").includes("crashing in the middle of the turn"),
        );
        const shown = await failure.textContent() ?? "";
        assert.equal(shown.split("crashing in the middle of the turn").length - 1, 1, shown);
        const main = page.getByRole("main");
        await expectText(main, /Continue starts the agent again; then type the next turn/);
        assert.doesNotMatch(await main.textContent() ?? "", /cannot go on/);
        const send = page.getByRole("button", { name: CHAT.send });
        await page.getByRole("textbox", { name: CHAT.nextTurnField }).fill("A next turn");
        assert.equal(await send.getAttribute("aria-disabled"), "false");
        await watched.assertAccessible("a failed conversation");
        await watched.screenshot("chat-failed-light");
        await watched.close();
      },
    );

    await t.step(
      "a failed conversation goes on: Continue sends what waits, and so does a message sent",
      async () => {
        await defineLater(false);
        const watched = await openPage(browser, installation, { path: chat });
        const { page } = watched;
        await begin(page, "no-permission my first words", "later");
        const log = page.getByRole("log", { name: CHAT.transcript });
        await log.getByRole("article", { name: CHAT.failure }).first().waitFor();
        await expectText(
          page.getByRole("main"),
          /Continue starts the agent again and sends the 1 message kept above/,
        );
        // What waits to be sent follows the failure, with no empty room between them.
        const failureBox = await log.getByRole("article", { name: CHAT.failure }).first()
          .boundingBox();
        const waitingBox = await page.getByRole("region", { name: CHAT.notSentYet }).boundingBox();
        assert.ok(failureBox && waitingBox);
        assert.ok(
          waitingBox.y - (failureBox.y + failureBox.height) < 64,
          `${waitingBox.y - (failureBox.y + failureBox.height)} px between them`,
        );
        await watched.screenshot("chat-failed-waiting-light");
        await defineLater(true);
        await page.getByRole("button", { name: CHAT.continue }).click();
        await expectText(log, /You said: «no-permission my first words»/);
        await expectText(log, /Turn ended/);
        await expectGone(page.getByRole("region", { name: CHAT.notSentYet }));
        await watched.close();

        // Failed again, a message sent without Continue raises the agent: both are answered.
        await defineLater(false);
        const dark = await openPage(browser, installation, { path: chat, colorScheme: "dark" });
        await begin(dark.page, "no-permission the first again", "later");
        const darkLog = dark.page.getByRole("log", { name: CHAT.transcript });
        await darkLog.getByRole("article", { name: CHAT.failure }).first().waitFor();
        await dark.screenshot("chat-failed-dark");
        await defineLater(true);
        const box = dark.page.getByRole("textbox", { name: CHAT.nextTurnField });
        await box.fill("no-permission and one more");
        await box.press("Enter");
        await expectText(darkLog, /You said: «[^»]*no-permission the first again»/);
        await expectText(darkLog, /You said: «no-permission and one more»/);
        await expectCount(darkLog.getByText("Turn ended"), 2);
        await dark.close();
      },
    );

    await t.step(
      "a message typed while the agent starts is kept, then answered after the first",
      async () => {
        const watched = await openPage(browser, installation, { path: chat });
        const { page } = watched;
        await begin(page, "no-permission the first words", "slow");
        await expectText(page.locator("#turn-reason"), /The agent is starting/);
        await expectText(
          page.getByRole("log", { name: CHAT.transcript }),
          /the agent is starting/,
        );
        const box = page.getByRole("textbox", { name: CHAT.nextTurnField });
        await box.fill("no-permission the second words");
        await box.press("Enter");
        await expectText(
          page.getByRole("status").filter({ hasText: "Kept" }),
          /once it is up/,
        );
        await expectText(page.getByRole("region", { name: CHAT.notSentYet }), /second words/);
        await watched.screenshot("chat-starting-light");
        const log = page.getByRole("log", { name: CHAT.transcript });
        await expectText(log, /You said: «no-permission the first words/);
        await expectText(log, /You said: «no-permission the second words/);
        await expectCount(log.getByText("Turn ended"), 2);
        await expectGone(page.getByRole("region", { name: CHAT.notSentYet }));
        await watched.close();
      },
    );

    await t.step(
      "work the clock began says so in its header: the handler, the clock, when, what for",
      async () => {
        // Triage is scheduled: the serve's clock runs it at its first look after the restart
        // (or at an earlier look), and it orders a session for the open issue.
        await installation.install(examplePath("issues"), project);
        await installation.syncOk([
          "write",
          "--project",
          project,
          "--key",
          "issues.issue/7",
          "--title",
          "Saving is slow",
          "--fields",
          '{"number":7,"state":"open"}',
        ]);
        await installation.install(examplePath("triage"), project);
        await installation.syncOk(["open", "--project", project]);
        await installation.restart();
        const watched = await openPage(browser, installation, { path: chat });
        const { page } = watched;
        const row = page.getByRole("list", { name: "Triage" }).getByRole("link").first();
        await row.click();
        const header = page.locator(".chat-header");
        await expectText(header, /Begun by the Triage sweep on the clock at \d{1,2}:\d{2}/);
        await expectText(header, "Orders an agent session to triage new open issues");
        await expectText(header, "About issues.issue/7");
        await watched.assertAccessible("a conversation the clock began");
        await watched.screenshot("chat-begun-by-clock-light");
        await watched.close();
        const dark = await openPage(browser, installation, { path: chat, colorScheme: "dark" });
        try {
          await dark.page.getByRole("list", { name: "Triage" }).getByRole("link").first().click();
          await expectText(dark.page.locator(".chat-header"), "About issues.issue/7");
          await dark.screenshot("chat-begun-by-clock-dark");
        } finally {
          await dark.close();
        }
      },
    );
  } finally {
    await installation.close();
    await browser.close();
  }
});
