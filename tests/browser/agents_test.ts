import assert from "node:assert/strict";
import {
  BROWSER_TEST,
  expectGone,
  expectText,
  hasFocus,
  Installation,
  launchBrowser,
  openPage,
  until,
} from "./_browser.ts";

Deno.test("the start page's agents: added, replaced and removed", BROWSER_TEST, async (t) => {
  const browser = await launchBrowser();
  const installation = await Installation.create();
  try {
    await installation.serve();
    const watched = await openPage(browser, installation);
    const { page } = watched;
    const agents = page.getByRole("list", { name: "Agents" });
    const row = agents.getByRole("listitem").filter({ hasText: "my-agent" });
    const said = page.locator(".agents-said");

    await t.step("Save agent says so, and the line that says it has the focus", async () => {
      const form = page.getByRole("form", { name: "Add or replace an agent" });
      await form.getByLabel("Name", { exact: true }).fill("my-agent");
      await form.getByLabel("Command", { exact: true }).fill("my-program");
      await form.getByLabel("Environment, NAME=value a line").fill("API_KEY=secret");
      await form.getByRole("button", { name: "Save agent" }).click();
      await expectText(said, "Added my-agent.");
      await expectText(row, "my-program");
      await until("the status line has the focus", () => hasFocus(said));
    });

    await t.step("Replace… puts the focus in the form it filled", async () => {
      await row.getByRole("button", { name: "Replace my-agent" }).click();
      const command = page.getByLabel("Command", { exact: true });
      await until("the Command field has the focus", () => hasFocus(command));
      assert.equal(await command.inputValue(), "my-program");
      assert.equal(await page.getByLabel("Name", { exact: true }).inputValue(), "my-agent");
    });

    await t.step("Remove… asks first; Escape keeps it, and the focus goes back", async () => {
      const open = row.getByRole("button", { name: "Remove my-agent…" });
      await open.click();
      const dialog = page.getByRole("dialog", { name: "Remove the agent my-agent?" });
      await dialog.waitFor();
      await expectText(dialog, /Its command: my-program/);
      await expectText(dialog, /API_KEY.*cannot be read back/);
      const remove = dialog.getByRole("button", { name: "Remove", exact: true });
      assert.ok(await hasFocus(remove), "the primary action has the focus");
      await watched.assertAccessible("the remove-agent dialog");
      await watched.screenshot("agents-remove-dialog-light");
      await page.keyboard.press("Escape");
      await expectGone(dialog);
      assert.ok(await hasFocus(open), "the focus goes back to Remove…");
      await expectText(row, "my-program");
      assert.match(await installation.syncOk(["agents"]), /my-agent/);
    });

    await t.step(
      "Remove in the dialog removes it; the line that says so has the focus",
      async () => {
        await row.getByRole("button", { name: "Remove my-agent…" }).press("Enter");
        const dialog = page.getByRole("dialog", { name: "Remove the agent my-agent?" });
        await dialog.waitFor();
        await page.keyboard.press("Enter");
        await expectGone(dialog);
        await expectGone(row);
        await expectText(said, "Removed my-agent.");
        await until("the status line has the focus", () => hasFocus(said));
        assert.doesNotMatch(await installation.syncOk(["agents"]), /my-agent/);
        // The form Replace… filled for it is empty again.
        assert.equal(await page.getByLabel("Name", { exact: true }).inputValue(), "");
        await watched.screenshot("agents-removed-light");
      },
    );
    await t.step("keys kept beside a preset are forgotten, and the preset stays", async () => {
      // As Chat's sign-in form saves one.
      const url = await installation.serve();
      const saved = await fetch(new URL("/api/agents/codex/env", url.origin), {
        method: "POST",
        headers: {
          authorization: `Bearer ${installation.token}`,
          "content-type": "application/json",
        },
        body: JSON.stringify({ name: "OPENAI_API_KEY", value: "sk-not-a-real-key" }),
      });
      assert.equal(saved.status, 200, await saved.text());
      assert.match(await installation.syncOk(["agents"]), /\(env: OPENAI_API_KEY\)/);
      await page.reload();
      const codex = page.getByRole("list", { name: "Agents" }).getByRole("listitem").filter({
        has: page.locator(".agent-name", { hasText: /^codex$/ }),
      });
      await expectText(codex, "OPENAI_API_KEY");
      await codex.getByRole("button", { name: "Forget the keys kept for codex…" }).click();
      const dialog = page.getByRole("dialog", { name: "Forget the keys kept for codex?" });
      await expectText(dialog, "OPENAI_API_KEY");
      await watched.assertAccessible("the dialog that forgets a preset's keys");
      await watched.screenshot("agents-forget-keys-light");
      await dialog.getByRole("button", { name: "Forget", exact: true }).click();
      await expectGone(dialog);
      await expectText(page.locator(".agents-said"), "Forgot the keys kept for codex; it stays.");
      await expectGone(codex.getByRole("button", { name: "Forget the keys kept for codex…" }));
      const listed = await installation.syncOk(["agents"]);
      assert.match(listed, /codex/);
      assert.doesNotMatch(listed, /\(env: OPENAI_API_KEY\)/);
    });
    await watched.close();
  } finally {
    await installation.close();
    await browser.close();
  }
});
