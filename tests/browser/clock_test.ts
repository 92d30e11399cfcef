import assert from "node:assert/strict";
import { join } from "node:path";
import {
  BROWSER_TEST,
  expectText,
  hasFocus,
  Installation,
  launchBrowser,
  type Locator,
  openPage,
  SCREENSHOT_DIR,
  tabTo,
  until,
} from "./_browser.ts";
import { EXTENSION } from "./_names.ts";

/** A package whose one handler runs on the clock every hour. */
const CLOCKED = {
  id: "clocked",
  permissions: ["background", "schedule"],
  handlers: ["clocked.tick"],
  service: `export default function register() { return { "clocked.tick": () => 1 }; }`,
  manifest: { schedule: [{ handler: "clocked.tick", description: "Ticks", every: "1h" }] },
};

/** How each segment of the Off | On group looks: its fill, its weight, and its check mark. */
async function segments(group: Locator) {
  return await group.locator("label > span").evaluateAll((spans) =>
    spans.map((span) => {
      const view = span.ownerDocument.defaultView!;
      return {
        text: span.textContent,
        fill: view.getComputedStyle(span).backgroundColor,
        weight: Number(view.getComputedStyle(span).fontWeight),
        mark: view.getComputedStyle(span, "::before").visibility === "visible",
      };
    })
  );
}

/** Fails unless the chosen segment differs from the other by its fill, its weight and a mark. */
async function assertChosen(group: Locator, chosen: "Off" | "On") {
  const [off, on] = await segments(group);
  const [yes, no] = chosen === "Off" ? [off, on] : [on, off];
  assert.equal(yes.text, chosen);
  assert.ok(yes.mark && !no.mark, `only ${chosen} has the check mark`);
  assert.ok(yes.weight > no.weight, `${chosen} is bolder`);
  assert.notEqual(yes.fill, no.fill, `${chosen} is filled`);
}

Deno.test("the clock's Off | On", BROWSER_TEST, async (t) => {
  const browser = await launchBrowser();
  const installation = await Installation.create();
  try {
    const project = await installation.project("site");
    await installation.install(await installation.writePackage(CLOCKED), project);
    await installation.serve();
    const schedule = async () => await installation.syncOk(["schedule", "--project", project]);
    const path = `/p/${encodeURIComponent(project)}/extensions/clocked`;

    await t.step("with the mouse, Off and On switch it, and `sync schedule` agrees", async () => {
      const watched = await openPage(browser, installation, { path });
      const { page } = watched;
      const group = page.getByRole("radiogroup", { name: EXTENSION.clockGroup });
      const off = group.getByRole("radio", { name: EXTENSION.off });
      const on = group.getByRole("radio", { name: EXTENSION.on });
      await on.waitFor({ state: "attached" });
      assert.equal(await on.isChecked(), true);
      assert.match(await schedule(), /\[on\]/);
      await off.click();
      await expectText(page.getByRole("status").filter({ hasText: "Switched" }), /Switched off/);
      assert.equal(await off.isChecked(), true);
      // Which is chosen shows without the focus, and not by colour alone.
      await page.evaluate("document.activeElement?.blur()");
      await assertChosen(group, "Off");
      await page.locator(".clock-switch").screenshot({
        path: join(SCREENSHOT_DIR, "clock-switch-off-light.png"),
      });
      const offLine = await schedule();
      assert.match(offLine, /\[off\]/);
      assert.match(offLine, /Off for this project/);
      await watched.assertAccessible("an extension's page, clock off");
      await on.click();
      await expectText(page.getByRole("status").filter({ hasText: "Switched" }), /Switched on/);
      assert.equal(await on.isChecked(), true);
      await assertChosen(group, "On");
      assert.match(await schedule(), /\[on\]/);
      // Read again from the server, it says the same.
      await page.reload();
      await on.waitFor({ state: "attached" });
      await until("On checked after a reload", () => on.isChecked());
      await watched.close();
    });

    await t.step("with the keyboard alone, arrow keys move the radio group", async () => {
      const watched = await openPage(browser, installation, { path, colorScheme: "dark" });
      const { page } = watched;
      const group = page.getByRole("radiogroup", { name: EXTENSION.clockGroup });
      const off = group.getByRole("radio", { name: EXTENSION.off });
      const on = group.getByRole("radio", { name: EXTENSION.on });
      await on.waitFor({ state: "attached" });
      // A radio group is one Tab stop: the checked radio.
      await tabTo(page, on, 60);
      await page.keyboard.press("ArrowLeft");
      await expectText(page.getByRole("status").filter({ hasText: "Switched" }), /Switched off/);
      assert.equal(await off.isChecked(), true);
      assert.ok(await hasFocus(off), "the focus moves with the choice");
      assert.match(await schedule(), /\[off\]/);
      await assertChosen(group, "Off");
      await page.keyboard.press("ArrowRight");
      await expectText(page.getByRole("status").filter({ hasText: "Switched" }), /Switched on/);
      assert.equal(await on.isChecked(), true);
      await page.evaluate("document.activeElement?.blur()");
      await assertChosen(group, "On");
      await page.locator(".clock-switch").screenshot({
        path: join(SCREENSHOT_DIR, "clock-switch-on-dark.png"),
      });
      assert.match(await schedule(), /\[on\]/);
      await watched.close();
    });

    await t.step("`sync switch` from another process moves the open page's control", async () => {
      const watched = await openPage(browser, installation, { path });
      const { page } = watched;
      const group = page.getByRole("radiogroup", { name: EXTENSION.clockGroup });
      const off = group.getByRole("radio", { name: EXTENSION.off });
      const on = group.getByRole("radio", { name: EXTENSION.on });
      await on.waitFor({ state: "attached" });
      await page.evaluate("window.__marker = 'no reload'");
      await installation.syncOk(["switch", "clocked", "off", "--project", project]);
      await until("Off checked", () => off.isChecked());
      await installation.syncOk(["switch", "clocked", "on", "--project", project]);
      await until("On checked", () => on.isChecked());
      assert.equal(await page.evaluate("window.__marker"), "no reload");
      await watched.close();
    });
  } finally {
    await installation.close();
    await browser.close();
  }
});
