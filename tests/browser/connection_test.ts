import assert from "node:assert/strict";
import {
  BROWSER_TEST,
  expectCount,
  expectGone,
  expectText,
  Installation,
  launchBrowser,
  openPage,
  type Page,
  quietPackage,
  until,
} from "./_browser.ts";
import { CHAT, EXTENSION, NOTICES, RUN, WINDOW } from "./_names.ts";

/** What Chromium prints while the served address does not answer. */
const REFUSED = [/ERR_CONNECTION_REFUSED/, /Failed to load resource/];

/** A package whose one handler always fails, as a broken fetch would. */
function flakyPackage() {
  return {
    id: "flaky",
    handlers: ["flaky.fetch"],
    service: `export default function register() {
  return { "flaky.fetch": () => { throw new Error("the tracker answered 503"); } };
}`,
  };
}

/** A package whose one scheduled handler fails on the clock. */
const BROKEN_CLOCK = {
  id: "sweeper",
  permissions: ["background", "schedule"],
  handlers: ["sweeper.sweep"],
  service: `export default function register() {
  return { "sweeper.sweep": () => { throw new Error("the disk is full"); } };
}`,
  manifest: { schedule: [{ handler: "sweeper.sweep", description: "Sweeps", every: "1h" }] },
};

/** The clock looks once a minute: a test waits for its next look a little longer than that. */
const CLOCK_LOOK_MS = 90_000;

/** Begins a conversation with the demo agent from Chat's button; answers its key. */
async function begin(page: Page, text: string): Promise<string> {
  await page.getByRole("button", { name: CHAT.newButton }).click();
  const dialog = page.getByRole("dialog", { name: CHAT.newDialog });
  await dialog.getByLabel(CHAT.agentField, { exact: true }).selectOption("demo");
  await dialog.getByLabel(CHAT.firstTurnField, { exact: true }).fill(text);
  await dialog.getByRole("button", { name: CHAT.begin }).click();
  await until("the address names the conversation", () => /\/chat\/[^/]+$/.test(page.url()));
  return decodeURIComponent(new URL(page.url()).pathname.split("/").at(-1)!);
}

Deno.test(
  "the window follows Sync stopping and coming back, and tells what failed",
  BROWSER_TEST,
  async (t) => {
    const browser = await launchBrowser();
    const installation = await Installation.create();
    try {
      const project = await installation.project("site");
      await installation.serve();
      const chat = `/p/${encodeURIComponent(project)}/chat`;
      const extensions = `/p/${encodeURIComponent(project)}/extensions`;

      await t.step(
        "serve stops under an open page: a banner at once, Allow and Deny held; back, it says Reconnected",
        async () => {
          const watched = await openPage(browser, installation, {
            path: chat,
            expectedConsole: REFUSED,
          });
          const { page } = watched;
          await begin(page, "Look at the project");
          const log = page.getByRole("log", { name: CHAT.transcript });
          const prompt = log.getByRole("group", { name: CHAT.demoPermission });
          await prompt.waitFor();
          const allow = prompt.getByRole("button", { name: "Allow" });
          assert.equal(await allow.getAttribute("aria-disabled"), "false");
          // A Keep that Sync did not answer says so; the line goes once the window is back.
          await page.route("**/keep", (route) => route.abort());
          await page.getByRole("button", { name: CHAT.keep, exact: true }).click();
          const unanswered = page.getByRole("alert").filter({ hasText: /not answering/ });
          await expectText(unanswered, /comes back by itself/);
          assert.doesNotMatch(await unanswered.innerText(), /reload/);
          await page.unroute("**/keep");

          await installation.stopServe();
          const lost = page.getByRole("status").filter({ hasText: NOTICES.lost });
          await expectText(lost, /start it again with deno task serve/);
          await until(
            "Allow and Deny are held",
            async () =>
              (await allow.getAttribute("aria-disabled")) === "true" &&
              (await prompt.getByRole("button", { name: "Deny" }).getAttribute("aria-disabled")) ===
                "true",
          );
          assert.equal(
            await page.getByRole("button", { name: CHAT.send }).getAttribute("aria-disabled"),
            "true",
          );
          for (const name of [CHAT.keep, CHAT.newButton]) {
            assert.equal(
              await page.getByRole("button", { name, exact: true }).getAttribute("aria-disabled"),
              "true",
              `${name} is held`,
            );
          }
          // Held, a click does nothing: no error of a call that could not be made.
          await page.getByRole("button", { name: CHAT.newButton }).dispatchEvent("click");
          await expectCount(page.getByRole("dialog", { name: CHAT.newDialog }), 0);
          await allow.dispatchEvent("click");
          await expectCount(prompt.getByRole("alert"), 0);
          await watched.assertAccessible("a conversation while Sync does not answer");
          await watched.screenshot("connection-lost-light");

          await installation.serveAgain();
          await expectText(
            page.getByRole("status").filter({ hasText: NOTICES.back }),
            /read again/,
          );
          await expectGone(lost);
          await expectGone(unanswered);
          // The turn Sync stopped is told as Sync's stop, never as the agent's failure.
          await expectText(log, /Stopped when Sync stopped/);
          await expectCount(log.getByRole("article", { name: CHAT.failure }), 0);
          await expectText(page.getByRole("main"), /Interrupted: Sync stopped/);
          await expectGone(prompt.getByRole("button", { name: "Allow" }));
          await page.getByRole("button", { name: CHAT.continue }).waitFor();
          await watched.assertAccessible("a conversation after Sync came back");
          await watched.screenshot("connection-back-light");
          await watched.close();
        },
      );

      await t.step(
        "serve stops under an extension's page: Run now, With a payload… and Remove… are held",
        async () => {
          await installation.install(
            await installation.writePackage(quietPackage("held")),
            project,
          );
          const watched = await openPage(browser, installation, {
            path: `${extensions}/held`,
            expectedConsole: REFUSED,
          });
          const { page } = watched;
          const held = [RUN.runNow, RUN.withPayload, EXTENSION.removeButton];
          const states = () =>
            Promise.all(
              held.map((name) =>
                page.getByRole("button", { name, exact: true }).first().getAttribute(
                  "aria-disabled",
                )
              ),
            );
          assert.deepEqual(await states(), [null, null, null]);
          await installation.stopServe();
          await until(
            "Run now, With a payload… and Remove… are held",
            async () => (await states()).every((state) => state === "true"),
          );
          await page.getByRole("button", { name: EXTENSION.removeButton }).dispatchEvent("click");
          await expectCount(page.getByRole("dialog", { name: EXTENSION.removeDialog }), 0);
          await watched.assertAccessible("an extension's page while Sync does not answer");
          await watched.screenshot("connection-lost-extension-light");
          await installation.serveAgain();
          await until(
            "the buttons are free again",
            async () => (await states()).every((state) => state === null),
          );
          await watched.close();
        },
      );

      await t.step(
        "a removal's notice belongs to the page it was made on: it goes on navigation",
        async () => {
          await installation.install(
            await installation.writePackage(quietPackage("gone")),
            project,
          );
          const watched = await openPage(browser, installation, { path: `${extensions}/gone` });
          const { page } = watched;
          await page.getByRole("button", { name: EXTENSION.removeButton }).click();
          const dialog = page.getByRole("dialog", { name: EXTENSION.removeDialog });
          await dialog.getByRole("button", { name: EXTENSION.remove, exact: true }).click();
          const removed = page.getByRole("status").filter({ hasText: "Removed" });
          await expectText(removed, /Removed Gone from this project/);
          const nav = page.getByRole("navigation");
          await nav.getByRole("link", { name: NOTICES.chatArea }).click();
          await page.waitForURL((url) => url.pathname === chat);
          await nav.getByRole("link", { name: WINDOW.extensionsArea }).click();
          await page.waitForURL((url) => url.pathname === extensions);
          await expectText(
            page.getByRole("main"),
            /Choose an extension|An extension adds handlers/,
          );
          await expectCount(removed, 0);

          // Dismissed, it goes at once.
          await installation.install(
            await installation.writePackage(quietPackage("gone")),
            project,
          );
          await page.getByRole("list", { name: WINDOW.extensionList }).getByRole("link", {
            name: /Gone/,
          }).click();
          await page.getByRole("button", { name: EXTENSION.removeButton }).click();
          await dialog.getByRole("button", { name: EXTENSION.remove, exact: true }).click();
          await expectText(removed, /Removed Gone from this project/);
          await removed.getByRole("button", { name: NOTICES.dismissDone }).click();
          await expectCount(removed, 0);
          await watched.close();
        },
      );

      await t.step(
        "a failure in the background: a quiet notice anywhere, the count on the navigator",
        async () => {
          await installation.install(await installation.writePackage(flakyPackage()), project);
          for (let i = 0; i < 3; i++) await installation.call(project, "flaky", "flaky.fetch");
          const watched = await openPage(browser, installation, { path: chat });
          const { page } = watched;
          const notices = page.getByRole("region", { name: NOTICES.region });
          const flaky = notices.getByRole("listitem").filter({ hasText: "Flaky needs you" });
          await expectText(flaky, /the tracker answered 503/);
          const nav = page.getByRole("navigation");
          await expectText(
            nav.getByRole("link", { name: /^Extensions 1 notice$/ }).locator(".navigator-count"),
            "1",
          );
          // A conversation that waits for the person is told on the Extensions page, counted on Chat.
          await begin(page, "Look at the project");
          await page.getByRole("group", { name: CHAT.demoPermission }).waitFor();
          // Over the conversation itself, its own notice is not repeated.
          await expectCount(notices.getByRole("listitem").filter({ hasText: "Waits for you" }), 0);
          await nav.getByRole("link", { name: /^Extensions/ }).click();
          const waiting = notices.getByRole("listitem").filter({ hasText: "Waits for you" });
          await expectText(waiting, /asks your permission/);
          await nav.getByRole("link", { name: /^Chat 1 notice$/ }).waitFor();
          await watched.assertAccessible("the window with notices of background failures");
          await watched.screenshot("window-notices-light");

          // Dismissed, a notice stays dismissed after a reload, until a new failure.
          await flaky.getByRole("button", { name: NOTICES.dismiss }).click();
          await expectCount(flaky, 0);
          await nav.getByRole("link", { name: /^Extensions$/ }).waitFor();
          await page.reload();
          await expectText(waiting, /asks your permission/);
          await expectCount(flaky, 0);
          await installation.call(project, "flaky", "flaky.fetch");
          await expectText(flaky, /the tracker answered 503/);
          await watched.close();

          const dark = await openPage(browser, installation, {
            path: extensions,
            colorScheme: "dark",
          });
          try {
            await expectText(
              dark.page.getByRole("region", { name: NOTICES.region }),
              /Flaky needs you/,
            );
            await dark.assertAccessible("the window with notices, dark");
            await dark.screenshot("window-notices-dark");
          } finally {
            await dark.close();
          }
          // In a narrow window the count stays beside the navigator's glyph.
          const narrow = await openPage(browser, installation, {
            path: extensions,
            viewport: { width: 560, height: 800 },
          });
          try {
            const nav = narrow.page.getByRole("navigation");
            await nav.getByRole("link", { name: /^Chat 1 notice$/ }).locator(".navigator-count")
              .waitFor();
            // The project's name stays in sight, its whole folder on hover.
            const short = nav.locator(".navigator-short");
            assert.ok(await short.isVisible(), "the project's name is shown");
            await expectText(short, "site");
            assert.equal(await short.getAttribute("title"), project);
            await narrow.assertAccessible("the window with notices, narrow");
            await narrow.screenshot("window-notices-narrow-light");
          } finally {
            await narrow.close();
          }
        },
      );

      await t.step("a clock run that failed is told at once, wherever the window is", async () => {
        const watched = await openPage(browser, installation, { path: chat });
        const { page } = watched;
        const notices = page.getByRole("region", { name: NOTICES.region });
        // Installed while the window is open: the clock runs it at its next look, and it fails.
        await installation.install(await installation.writePackage(BROKEN_CLOCK), project);
        await installation.syncOk(["open", "--project", project]);
        const failed = notices.getByRole("listitem").filter({ hasText: "failed on the clock" });
        await until("the clock's next look", async () => await failed.count() > 0, CLOCK_LOOK_MS);
        await expectText(failed, /Sweeper: sweeper\.sweep failed on the clock/);
        await expectText(failed, /the disk is full/);
        await watched.screenshot("window-notice-clock-light");
        await failed.getByRole("link").click();
        await page.waitForURL((url) => url.pathname === `${extensions}/sweeper`);
        // On the extension's own page, its notice is not repeated over it.
        await expectCount(failed, 0);
        await watched.close();
      });
    } finally {
      await installation.close();
      await browser.close();
    }
  },
);
