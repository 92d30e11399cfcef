import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import {
  BROWSER_TEST,
  expectGone,
  expectText,
  Installation,
  launchBrowser,
  openPage,
  until,
} from "./_browser.ts";
import { CHAT } from "./_names.ts";

const DEMO_AGENT = fileURLToPath(
  new URL("../../runtime/agents/demo/demo_agent.ts", import.meta.url),
);

Deno.test(
  "Chat signs an agent in with a key and then answers the first message",
  BROWSER_TEST,
  async (t) => {
    const browser = await launchBrowser();
    const installation = await Installation.create();
    try {
      const project = await installation.project("site");
      // The demo agent, asking for a key it reads from its environment before any session opens.
      await installation.syncOk([
        "agents",
        "add",
        "keyed",
        "--command",
        Deno.execPath(),
        "--arg=run",
        "--arg=--allow-net=127.0.0.1",
        "--arg=--allow-env=DEMO_KEY",
        `--arg=${DEMO_AGENT}`,
        "--arg=--needs-key=DEMO_KEY",
      ]);
      await installation.serve();
      const chat = `/p/${encodeURIComponent(project)}/chat`;
      let watched = await openPage(browser, installation, { path: chat });
      let page = watched.page;

      await t.step("the first message waits, shown, with a form for the key", async () => {
        await page.getByRole("button", { name: CHAT.newButton }).click();
        const dialog = page.getByRole("dialog", { name: CHAT.newDialog });
        await dialog.getByLabel(CHAT.agentField, { exact: true }).selectOption("keyed");
        await dialog.getByLabel(CHAT.firstTurnField, { exact: true }).fill(
          "no-permission my <b>first</b> words",
        );
        await dialog.getByRole("button", { name: CHAT.begin }).click();
        const ways = page.getByRole("region", { name: CHAT.signInWays });
        await expectText(ways, /DEMO_KEY/);
        await expectText(
          page.getByRole("region", { name: CHAT.notSentYet }),
          /my <b>first<\/b> words/,
        );
        // The wait is said once: the ways, with the agent's code drawn as code, and no repeat.
        const box = page.locator(".turn-box");
        assert.doesNotMatch(await box.textContent() ?? "", /needs a person to sign in/);
        await expectText(ways.locator("code", { hasText: "DEMO_KEY" }).first(), "DEMO_KEY");
        assert.doesNotMatch(await ways.textContent() ?? "", /`/);
        await expectText(page.locator("#turn-reason"), /kept, and sent once you sign in/);
        await watched.assertAccessible("a conversation waiting for a key");
        await watched.screenshot("chat-sign-in-light");
      });

      await t.step(
        "interrupted while it waits, the page says what Continue does with the kept message",
        async () => {
          const key = decodeURIComponent(new URL(page.url()).pathname.split("/").at(-1)!);
          await watched.close();
          await installation.restart();
          watched = await openPage(browser, installation, {
            path: `${chat}/${encodeURIComponent(key)}`,
            colorScheme: "dark",
          });
          page = watched.page;
          const log = page.getByRole("log", { name: CHAT.transcript });
          await expectText(log, /Nothing sent to keyed yet/);
          assert.doesNotMatch(await log.textContent() ?? "", /Nothing was said/);
          const notice = page.locator(".turn-box .turn-notice");
          await expectText(notice, /Sync stopped before the agent's session opened/);
          await expectText(notice, /Continue raises the agent again and sends the 1 message kept/);
          assert.doesNotMatch(await notice.textContent() ?? "", /was working/);
          await watched.assertAccessible("a conversation interrupted while it waited for a key");
          await watched.screenshot("chat-interrupted-sign-in-dark");
          await page.getByRole("button", { name: CHAT.continue }).click();
          const ways = page.getByRole("region", { name: CHAT.signInWays });
          await expectText(ways, /DEMO_KEY/);
          await watched.screenshot("chat-sign-in-dark");
        },
      );

      await t.step(
        "saving the key continues, and the agent answers the first message",
        async () => {
          const ways = page.getByRole("region", { name: CHAT.signInWays });
          await ways.getByRole("textbox", { name: /DEMO_KEY/ }).fill("a-key-nobody-sees");
          await ways.getByRole("button", { name: CHAT.saveKey }).click();
          const log = page.getByRole("log", { name: CHAT.transcript });
          await expectText(log, /my <b>first<\/b> words/);
          await until(
            "the agent's reply quotes the first message",
            async () =>
              (await log.textContent() ?? "").includes(
                "You said: «no-permission my <b>first</b> words",
              ),
          );
          await expectGone(page.getByRole("region", { name: CHAT.signInWays }));
          await expectGone(page.getByRole("region", { name: CHAT.notSentYet }));
          assert.equal(
            await page.locator("b", { hasText: "first" }).count(),
            0,
            "no HTML from text",
          );
          const listing = await installation.syncOk(["agents"]);
          assert.ok(!listing.includes("a-key-nobody-sees"), "the key is never shown again");
          await watched.screenshot("chat-sign-in-answered");
        },
      );
      await watched.close();
    } finally {
      await installation.close();
      await browser.close();
    }
  },
);
