import assert from "node:assert/strict";
import type { ProjectReceiptsResponse } from "../../runtime/web/api/receipts_types.ts";
import {
  BROWSER_TEST,
  expectCount,
  expectText,
  Installation,
  launchBrowser,
  openPage,
  type Page,
  until,
} from "./_browser.ts";
import { NOTICES } from "./_names.ts";

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

/** A package whose one handler fails, called by the person from the CLI. */
const FLAKY = {
  id: "flaky",
  handlers: ["flaky.fetch"],
  service: `export default function register() {
  return { "flaky.fetch": () => { throw new Error("the tracker answered 503"); } };
}`,
};

/** A package whose handler for the project's opening fails, each time the project is opened. */
const BROKEN_DOOR = {
  id: "door",
  handlers: ["door.opened"],
  service: `export default function register() {
  return { "door.opened": () => { throw new Error("the door is stuck"); } };
}`,
  manifest: { lifecycle: { opened: "door.opened" } },
};

/** The clock looks once a minute: a test waits for its next look a little longer than that. */
const CLOCK_LOOK_MS = 90_000;

/** Reloads the page and waits until the window has asked for the failures it has not told. */
async function reloadAndRead(page: Page): Promise<void> {
  const asked = page.waitForResponse((response) =>
    new URL(response.url()).pathname === "/api/receipts"
  );
  await page.reload();
  await (await asked).finished();
  // Two frames: what the answer changed is drawn.
  await page.evaluate(
    "new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)))",
  );
}

Deno.test(
  "openWindowNotices() tells the failures of while no window was open, once",
  BROWSER_TEST,
  async (t) => {
    const browser = await launchBrowser();
    const installation = await Installation.create();
    try {
      const project = await installation.project("site");
      await installation.serve();
      const chat = `/p/${encodeURIComponent(project)}/chat`;

      // No page is open: the project's opening fails five times, the clock's run once (after
      // four of them), and the person's own call once.
      await installation.install(await installation.writePackage(BROKEN_DOOR), project);
      await installation.install(await installation.writePackage(FLAKY), project);
      for (let opened = 0; opened < 4; opened++) {
        await installation.sync(["open", "--project", project]);
      }
      await installation.install(await installation.writePackage(BROKEN_CLOCK), project);
      await installation.sync(["open", "--project", project]);
      const own = await installation.call(project, "flaky", "flaky.fetch");
      assert.notEqual(own.code, 0);
      const failedOnTheClock = async () => {
        const url = new URL("/api/receipts", installation.origin);
        url.search = new URLSearchParams({ project, id: "sweeper", outcome: "failed" }).toString();
        const response = await fetch(url, {
          headers: { authorization: `Bearer ${installation.token}` },
        });
        const body: ProjectReceiptsResponse = await response.json();
        return body.receipts.length > 0;
      };
      await until("the clock's next look", failedOnTheClock, CLOCK_LOOK_MS);

      await t.step("a clock run that failed unwatched is told when the window opens", async () => {
        const watched = await openPage(browser, installation, { path: chat });
        const { page } = watched;
        const notices = page.getByRole("region", { name: NOTICES.region });
        const failed = notices.getByRole("listitem").filter({ hasText: "failed on the clock" });
        await expectText(failed, /Sweeper: sweeper\.sweep failed on the clock/);
        await expectText(failed, /the disk is full/);
        // The person's own call failed in front of them: it is not a background failure.
        await expectCount(notices.getByText(/flaky\.fetch/), 0);
        // The newest three are told one by one, the door's newest by its lamp; the rest counted.
        const nav = page.getByRole("navigation");
        await nav.getByRole("link", { name: /^Extensions 4 notices$/ }).waitFor();
        await watched.assertAccessible("the window telling a failure of while it was closed");
        await watched.screenshot("window-notice-missed-light");

        await failed.getByRole("button", { name: NOTICES.dismiss }).click();
        await expectCount(failed, 0);
        const more = notices.getByRole("listitem").filter({ hasText: "3 more failures" });
        await expectText(more, /failed while no window was open/);
        await watched.screenshot("window-notice-missed-more-light");
        assert.equal(
          await more.getByRole("link").getAttribute("href"),
          `/p/${encodeURIComponent(project)}/extensions`,
        );
        await reloadAndRead(page);
        await nav.waitFor();
        await expectCount(failed, 0);
        await expectCount(more, 0);
        await watched.close();
      });

      await t.step("a failure told once is not told again after a reload", async () => {
        // Another browser never saw it: it is told there, once.
        const watched = await openPage(browser, installation, { path: chat, colorScheme: "dark" });
        const { page } = watched;
        const notices = page.getByRole("region", { name: NOTICES.region });
        const failed = notices.getByRole("listitem").filter({ hasText: "failed on the clock" });
        await expectText(failed, /the disk is full/);
        await watched.assertAccessible("the window telling a failure of while it was closed, dark");
        await watched.screenshot("window-notice-missed-dark");
        await reloadAndRead(page);
        await page.getByRole("navigation").waitFor();
        await expectCount(failed, 0);
        await watched.close();
      });
    } finally {
      await installation.close();
      await browser.close();
    }
  },
);
