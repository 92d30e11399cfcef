import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import {
  BROWSER_TEST,
  expectCount,
  expectGone,
  expectText,
  Installation,
  launchBrowser,
  openPage,
  type Page,
  until,
} from "./_browser.ts";
import { CHAT, NOTICES } from "./_names.ts";

const DEMO_AGENT = fileURLToPath(
  new URL("../../runtime/agents/demo/demo_agent.ts", import.meta.url),
);

/** What these steps find on the page, by the names people see. */
const STATES = {
  keepAgain: "Keep again",
  archive: "Archive",
  restore: "Restore",
  deleteButton: "Delete…",
  deleteDialog: "Delete this conversation?",
  deleteConfirm: "Delete",
  showArchived: /Show archived/,
  archived: "Archived",
  cancelled: "Cancelled",
} as const;

Deno.test(
  "Chat says what Keep, Cancel, Continue, Archive and Delete do",
  BROWSER_TEST,
  async (t) => {
    const browser = await launchBrowser();
    const installation = await Installation.create();
    try {
      const project = await installation.project("states");
      const demo = (name: string, ...flags: string[]) =>
        installation.syncOk([
          "agents",
          "add",
          name,
          "--command",
          Deno.execPath(),
          "--arg=run",
          "--arg=--allow-net=127.0.0.1",
          `--arg=${DEMO_AGENT}`,
          ...flags.map((flag) => `--arg=${flag}`),
        ]);
      await installation.syncOk([
        "agents",
        "add",
        "missing",
        "--command",
        "/nonexistent/sync-test-agent",
      ]);
      await installation.syncOk(["agents", "add", "absent", "--command", "sync-no-such-program"]);
      await demo("signin", "--needs-sign-in");
      await demo("slow", "--slow-start");
      await installation.serve();
      const chat = `/p/${encodeURIComponent(project)}/chat`;

      /** Begins a conversation from the list's button and answers its key, from the address. */
      const begin = async (page: Page, text: string, agent = "demo") => {
        await page.getByRole("button", { name: CHAT.newButton }).click();
        const dialog = page.getByRole("dialog", { name: CHAT.newDialog });
        await dialog.getByLabel(CHAT.agentField, { exact: true }).selectOption(agent);
        await dialog.getByLabel(CHAT.firstTurnField, { exact: true }).fill(text);
        await dialog.getByRole("button", { name: CHAT.begin }).click();
        await until("the address names a new conversation", () => {
          const last = decodeURIComponent(new URL(page.url()).pathname.split("/").at(-1)!);
          return last.startsWith("chat-") && !known.has(last);
        });
        const key = decodeURIComponent(new URL(page.url()).pathname.split("/").at(-1)!);
        known.add(key);
        return key;
      };
      const known = new Set<string>();

      await t.step(
        "the agent picker sets apart the agents that are not ready, and says why",
        async () => {
          const watched = await openPage(browser, installation, { path: chat });
          const { page } = watched;
          // The agent signin asks for a sign-in it never gets: its conversation waits.
          await begin(page, "Hello", "signin");
          await page.getByRole("region", { name: /Sign in to signin/ }).waitFor();

          await page.getByRole("button", { name: CHAT.newButton }).click();
          const dialog = page.getByRole("dialog", { name: CHAT.newDialog });
          const field = dialog.getByLabel(CHAT.agentField, { exact: true });
          await until("the agents are read", async () => await field.isEnabled());
          // What is chosen at first is ready: the demo agent.
          assert.equal(await field.inputValue(), "demo");
          const notReady = field.locator('optgroup[label="Not ready"] option');
          const words = await notReady.allTextContents();
          assert.ok(words.includes("missing — command not found"), words.join(", "));
          assert.ok(words.includes("absent — not installed"), words.join(", "));
          assert.ok(words.includes("signin — needs sign-in"), words.join(", "));
          const ready = await field.locator('optgroup[label="Ready"] option').allTextContents();
          assert.ok(ready.includes("demo"), ready.join(", "));
          await expectCount(dialog.locator(".agent-not-ready"), 0);

          await field.selectOption("missing");
          await expectText(
            dialog.locator(".agent-not-ready"),
            /Not ready: missing's command \/nonexistent\/sync-test-agent is not a program/,
          );
          await field.selectOption("absent");
          await expectText(
            dialog.locator(".agent-not-ready"),
            /absent's program sync-no-such-program is not installed \(or not on PATH\)\. To use it, install sync-no-such-program/,
          );
          await field.selectOption("signin");
          await expectText(
            dialog.locator(".agent-not-ready"),
            /signin asked to be signed in, in the conversation “Hello”/,
          );
          await watched.assertAccessible("the agent picker with an agent not ready");
          await watched.screenshot("chat-agent-picker-light");
          await dialog.getByRole("button", { name: "Cancel" }).click();
          await watched.close();
        },
      );

      let keptKey = "";
      await t.step(
        "Keep says what it wrote, links the record, and writes again only what is new",
        async () => {
          const watched = await openPage(browser, installation, { path: chat });
          const { page } = watched;
          const key = keptKey = await begin(page, "no-permission keep this");
          const log = page.getByRole("log", { name: CHAT.transcript });
          await expectText(log, /Turn ended/);
          // An ended conversation has no Continue: the next turn starts the agent when it must.
          await expectCount(page.getByRole("button", { name: CHAT.continue }), 0);

          await page.getByRole("button", { name: CHAT.keep, exact: true }).click();
          const kept = page.locator("#chat-kept");
          await expectText(kept, `Kept as chat.conversation/${key}, revision 1.`);
          const link = kept.getByRole("link", { name: `chat.conversation/${key}` });
          assert.equal(
            await link.getAttribute("href"),
            `/p/${encodeURIComponent(project)}/records/chat.conversation/${
              encodeURIComponent(key)
            }`,
          );
          // With nothing new, Keep again does nothing, and says when it will.
          const again = page.getByRole("button", { name: STATES.keepAgain });
          assert.equal(await again.getAttribute("aria-disabled"), "true");
          await expectText(kept, /Keep again once something new is said/);
          await watched.assertAccessible("a kept conversation");
          await watched.screenshot("chat-kept-light");

          const box = page.getByRole("textbox", { name: CHAT.nextTurnField });
          await box.fill("no-permission and this");
          await box.press("Enter");
          await expectCount(log.getByText("Turn ended"), 2);
          await until(
            "Keep again is offered",
            async () => await again.getAttribute("aria-disabled") === "false",
          );
          await again.click();
          await expectText(kept, `Kept as chat.conversation/${key}, revision 2.`);
          await watched.close();

          // A page that did not keep it knows only that it was kept: Keep again asks, and Sync
          // writes nothing, saying so.
          const fresh = await openPage(browser, installation, {
            path: `${chat}/${encodeURIComponent(key)}`,
            colorScheme: "dark",
          });
          const freshKept = fresh.page.locator("#chat-kept");
          await expectText(freshKept, `Kept in this project's memory as chat.conversation/${key}`);
          await fresh.page.getByRole("button", { name: STATES.keepAgain }).click();
          await expectText(
            freshKept,
            `Nothing changed since it was kept: chat.conversation/${key} stays at revision 2.`,
          );
          await fresh.assertAccessible("a conversation kept again with nothing new (dark)");
          await fresh.screenshot("chat-kept-unchanged-dark");
          await fresh.close();
          const records = await installation.syncOk([
            "records",
            "--project",
            project,
            "--kind",
            "chat.conversation",
          ]);
          assert.equal(JSON.parse(records.trim()).revision, 2);
        },
      );

      await t.step(
        "a cancelled turn shows its stopped step and plan as cancelled, not failed",
        async () => {
          const watched = await openPage(browser, installation, { path: chat });
          const { page } = watched;
          await begin(page, "Write a line");
          const log = page.getByRole("log", { name: CHAT.transcript });
          await log.getByRole("group", { name: CHAT.demoPermission }).waitFor();
          await page.getByRole("button", { name: CHAT.cancel }).click();
          await expectText(log, /Turn cancelled/);
          const call = log.getByRole("article", { name: `Tool call: ${CHAT.demoPermission}` });
          await expectText(call.locator(".tool-status"), STATES.cancelled);
          await expectCount(log.getByText("Failed", { exact: true }), 0);
          const plan = log.getByRole("article", { name: "Plan" });
          await expectText(plan, /Ask before writing\s*cancelled/);
          await expectCount(plan.getByText("doing", { exact: true }), 0);
          await expectCount(log.getByRole("article", { name: CHAT.failure }), 0);
          await watched.assertAccessible("a cancelled turn");
          await watched.screenshot("chat-cancelled-light");

          // Cancelled while it starts, Sync stops the agent: said as Cancelled, not as a failure.
          await begin(page, "no-permission not yet", "slow");
          await page.getByRole("region", { name: CHAT.activity }).waitFor();
          await page.getByRole("button", { name: CHAT.cancel }).click();
          const stopped = log.getByRole("article", { name: STATES.cancelled });
          await expectText(
            stopped,
            /Cancelled\. The agent slow was cancelled while it was starting/,
          );
          await expectCount(log.getByRole("article", { name: CHAT.failure }), 0);
          await expectText(page.locator(".chat-header .chat-state"), "cancelled");
          await expectText(
            page.getByRole("list", { name: CHAT.conversations }).locator('a[aria-current="page"]'),
            /cancelled/,
          );
          await expectText(page.getByRole("main"), /Cancelled: Sync stopped the agent\. Continue/);
          // What the person cancelled is no background failure: no notice tells it elsewhere.
          await page.getByRole("link", { name: NOTICES.chatArea }).first().click();
          await until("Chat's list is shown", () => page.url().endsWith("/chat"));
          await expectText(page.getByRole("list", { name: CHAT.conversations }), /cancelled/);
          await expectCount(
            page.locator(".notice-stack").getByText(/no-permission not yet/),
            0,
          );
          await page.goBack();
          await watched.assertAccessible("a turn cancelled while the agent started");
          await watched.screenshot("chat-cancelled-starting-light");
          await watched.close();
        },
      );

      let failedKey = "";
      await t.step("Continue is offered where it does something, and says what", async () => {
        const watched = await openPage(browser, installation, { path: chat });
        const { page } = watched;
        failedKey = await begin(page, "no-permission first words", "missing");
        await page.getByRole("log", { name: CHAT.transcript }).getByRole("article", {
          name: CHAT.failure,
        }).first().waitFor();
        await expectText(
          page.getByRole("button", { name: CHAT.continue }),
          "Continue — starts the agent and sends the 1 message kept",
        );
        await watched.screenshot("chat-continue-failed-light");
        await watched.close();
      });

      await t.step("a failed conversation is archived, listed apart, and deleted", async () => {
        const watched = await openPage(browser, installation, {
          path: `${chat}/${encodeURIComponent(failedKey)}`,
        });
        const { page } = watched;
        const conversations = page.getByRole("list", { name: CHAT.conversations });
        await expectText(conversations, /no-permission first words/);
        await page.getByRole("button", { name: STATES.archive, exact: true }).click();
        await expectText(
          page.locator(".chat-action-said"),
          /Archived: Chat lists it under Archived/,
        );
        await expectGone(conversations.getByText("no-permission first words"));
        // Shown, it stays reachable under Archived (open, as it is the one shown).
        const archived = page.getByRole("list", { name: STATES.archived });
        await expectText(archived, /no-permission first words/);
        await watched.assertAccessible("an archived conversation");
        await watched.screenshot("chat-archived-light");
        // In a narrow window the header's buttons wrap under the title's side, and stay whole.
        const narrow = await openPage(browser, installation, {
          path: `${chat}/${encodeURIComponent(failedKey)}`,
          viewport: { width: 560, height: 800 },
        });
        await expectText(narrow.page.getByRole("button", { name: STATES.restore }), "Restore");
        await narrow.assertAccessible("an archived conversation in a narrow window");
        await narrow.screenshot("chat-archived-narrow-light");
        await narrow.close();
        const listed = await installation.syncOk(["chat", "--project", project]);
        assert.match(listed, new RegExp(`Archived\\n  ${failedKey}\\tfailed`));

        // Another window showing it hears that it was deleted, and reads nothing that is gone:
        // a read answered 404 would be a console error, which fails the page.
        const other = await openPage(browser, installation, {
          path: `${chat}/${encodeURIComponent(failedKey)}`,
        });
        await expectText(other.page.locator(".chat-title"), "no-permission first words");
        await page.getByRole("button", { name: STATES.deleteButton }).click();
        const dialog = page.getByRole("dialog", { name: STATES.deleteDialog });
        await expectText(dialog, /Its transcript, from Chat and from sync chat/);
        await watched.assertAccessible("the delete dialog");
        await watched.screenshot("chat-delete-dialog-light");
        await dialog.getByRole("button", { name: STATES.deleteConfirm, exact: true }).click();
        await until("the window goes back to the list", () => page.url().endsWith("/chat"));
        await expectText(page.getByRole("status").filter({ hasText: "Deleted" }), /Deleted “/);
        await expectCount(page.locator(".list-column").getByText("no-permission first words"), 0);
        await until(
          "the other window goes back to the list",
          () => other.page.url().endsWith("/chat"),
        );
        const said = other.page.getByRole("main").getByRole("status");
        await expectText(said, /Deleted “no-permission first words/);
        await expectCount(
          other.page.locator(".list-column").getByText("no-permission first words"),
          0,
        );
        await other.assertAccessible("Chat's list after the conversation shown was deleted");
        await other.screenshot("chat-deleted-elsewhere-light");
        other.assertClean();
        await other.close();
        const after = await installation.syncOk(["chat", "--project", project]);
        assert.doesNotMatch(after, new RegExp(failedKey));
        await watched.close();
      });

      await t.step(
        "a running conversation says to stop it first; a kept one's record stays",
        async () => {
          const watched = await openPage(browser, installation, { path: chat });
          const { page } = watched;
          await begin(page, "hang here");
          const log = page.getByRole("log", { name: CHAT.transcript });
          await expectText(log, /Hanging until cancelled/);
          // Marked disabled, the buttons still answer a press, saying why.
          const archive = page.getByRole("button", { name: STATES.archive, exact: true });
          assert.equal(await archive.getAttribute("aria-disabled"), "true");
          await archive.click({ force: true });
          await expectText(page.locator(".chat-action-said"), /cancel its turn first/);
          await page.getByRole("button", { name: STATES.deleteButton }).click({ force: true });
          await expectCount(page.getByRole("dialog", { name: STATES.deleteDialog }), 0);
          await page.getByRole("button", { name: CHAT.cancel }).click();
          await expectText(log, /Turn cancelled/);
          const plan = log.getByRole("article", { name: "Plan" });
          await expectText(plan, /Read the prompt\s*cancelled/);
          await watched.close();

          // The CLI archives, restores and deletes too; the kept record stays in the project.
          assert.match(
            await installation.syncOk(["chat", "archive", keptKey, "--project", project]),
            new RegExp(`Archived ${keptKey}`),
          );
          assert.match(
            await installation.syncOk(["chat", "restore", keptKey, "--project", project]),
            new RegExp(`Restored ${keptKey}`),
          );
          assert.match(
            await installation.syncOk(["chat", "delete", keptKey, "--project", project]),
            new RegExp(`the record chat.conversation/${keptKey} stays in the project`),
          );
          const records = await installation.syncOk([
            "records",
            "--project",
            project,
            "--kind",
            "chat.conversation",
          ]);
          assert.match(records, new RegExp(`chat\\.conversation/${keptKey}`));
        },
      );
    } finally {
      await installation.close();
      await browser.close();
    }
  },
);
