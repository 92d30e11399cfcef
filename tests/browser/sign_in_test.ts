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
      const watched = await openPage(browser, installation, {
        path: `/p/${encodeURIComponent(project)}/chat`,
      });
      const { page } = watched;

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
        await watched.assertAccessible("a conversation waiting for a key");
        await watched.screenshot("chat-sign-in-light");
      });

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
