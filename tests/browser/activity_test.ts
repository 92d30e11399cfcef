import assert from "node:assert/strict";
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

Deno.test("Chat shows what the agent is doing while a turn runs", BROWSER_TEST, async (t) => {
  const browser = await launchBrowser();
  const installation = await Installation.create();
  try {
    const project = await installation.project("site");
    await installation.serve();
    const chat = `/p/${encodeURIComponent(project)}/chat`;
    const watched = await openPage(browser, installation, { path: chat });
    const { page } = watched;
    let address = "";

    await t.step("a live line under the turn, and the agent's stderr as text", async () => {
      await page.getByRole("button", { name: CHAT.newButton }).click();
      const dialog = page.getByRole("dialog", { name: CHAT.newDialog });
      await dialog.getByLabel(CHAT.agentField, { exact: true }).selectOption("demo");
      // The demo agent writes a line on stderr every 20 ms and never ends the turn by itself.
      await dialog.getByLabel(CHAT.firstTurnField, { exact: true }).fill(
        "chatter hang <b>bold</b>",
      );
      await dialog.getByRole("button", { name: CHAT.begin }).click();
      await until("the address names the conversation", () => /\/chat\/[^/]+$/.test(page.url()));
      address = new URL(page.url()).pathname;

      const activity = page.getByRole("region", { name: CHAT.activity });
      await expectText(activity.getByRole("status"), "Working");
      await expectText(activity, /Working — last heard from demo \d+ s ago/);
      await activity.getByText(CHAT.agentOutput).click();
      await expectText(activity.locator("pre"), /demo agent: working, line \d+/);
      await watched.assertAccessible("a running turn with the agent's output open");
      await watched.screenshot("chat-activity-light");
    });

    await t.step("a page opened mid-turn shows it too, in dark", async () => {
      const dark = await openPage(browser, installation, { path: address, colorScheme: "dark" });
      try {
        const activity = dark.page.getByRole("region", { name: CHAT.activity });
        await expectText(activity, /last heard from demo \d+ s ago/);
        await activity.getByText(CHAT.agentOutput).click();
        await expectText(activity.locator("pre"), /demo agent: working, line \d+/);
        await dark.assertAccessible("a running turn in dark");
        await dark.screenshot("chat-activity-dark");
      } finally {
        await dark.close();
      }
    });

    await t.step("cancel ends the turn, and the line goes", async () => {
      await page.getByRole("button", { name: CHAT.cancel }).click();
      const log = page.getByRole("log", { name: CHAT.transcript });
      await expectText(log, /cancelled/i);
      await expectGone(page.getByRole("region", { name: CHAT.activity }));
      assert.equal(await page.locator("b", { hasText: "bold" }).count(), 0, "no HTML from text");
    });
    await watched.close();
  } finally {
    await installation.close();
    await browser.close();
  }
});
