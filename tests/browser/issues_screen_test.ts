import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import {
  BROWSER_TEST,
  expectText,
  Installation,
  launchBrowser,
  openPage,
  until,
} from "./_browser.ts";
import { SCREEN } from "./_names.ts";

const ISSUES = fileURLToPath(new URL("../../extensions/issues", import.meta.url));

Deno.test(
  "the Issues example's screen lists its records and runs its poll",
  BROWSER_TEST,
  async (t) => {
    const browser = await launchBrowser();
    const installation = await Installation.create();
    try {
      const project = await installation.project("tracker");
      await installation.install(ISSUES, project);
      await installation.serve();
      const path = `/p/${encodeURIComponent(project)}/screen/issues`;

      for (const colorScheme of ["light", "dark"] as const) {
        await t.step(`a failed check is told as text (${colorScheme})`, async () => {
          const watched = await openPage(browser, installation, {
            path,
            colorScheme,
            // The app's own call of issues.poll, which the unreachable tracker fails.
            expectedConsole: [/Failed to load resource: the server responded with a status of 4/],
          });
          const { page } = watched;
          await expectText(page.getByRole("status").filter({ hasText: /sandbox/ }), SCREEN.active);
          const frame = page.frameLocator("iframe.screen-frame");
          await expectText(frame.getByRole("heading", { level: 1 }), "Issues in this project");
          await expectText(frame.locator("body"), /No issues yet/);
          await frame.getByRole("button", { name: "Check now" }).click();
          await expectText(frame.getByRole("status"), /The tracker could not be checked: .+/);
          await watched.screenshot(`screen-issues-${colorScheme}`);
          await watched.close();
        });
      }

      await t.step(
        "a screen that reloads itself is given a fresh document and channel",
        async () => {
          const watched = await openPage(browser, installation, {
            path,
            expectedConsole: [/Failed to load resource: the server responded with a status of 401/],
          });
          const { page } = watched;
          const frame = page.frameLocator("iframe.screen-frame");
          await expectText(frame.locator("body"), /No issues yet/);
          const first = await page.locator("iframe.screen-frame").getAttribute("src");
          const inner = page.frames().find((f) => f.url().includes("/screens/issues"));
          assert.ok(inner);
          await inner.evaluate("location.reload()");
          const element = page.locator("iframe.screen-frame");
          await until(
            "a fresh document",
            async () => (await element.getAttribute("src")) !== first,
          );
          await expectText(page.getByRole("status").filter({ hasText: /sandbox/ }), SCREEN.active);
          await expectText(frame.locator("body"), /No issues yet/);
          await watched.close();
        },
      );
    } finally {
      await installation.close();
      await browser.close();
    }
  },
);
