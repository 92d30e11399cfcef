import assert from "node:assert/strict";
import { join } from "node:path";
import {
  BROWSER_TEST,
  expectText,
  hasFocus,
  Installation,
  launchBrowser,
  openPage,
  type Page,
  tabTo,
  until,
} from "./_browser.ts";
import { DEVICES } from "./_names.ts";

/**
 * A tiny applet: its device reads a folder on demand; its sync waits until
 * the test opens its gate (so the lamp can be seen breathing), writes a
 * record and says what it covered.
 */
const MAIL = `import { memory } from "@sync/extension-api/service";
export default function register() {
  return {
    "mail.sync": async () => {
      const until = Date.now() + 4500;
      while (Date.now() < until) {
        if (await memory.record("mail.gate/open")) break;
        const pause = Date.now() + 100;
        while (Date.now() < pause) { /* a handler has no timers: it spins */ }
      }
      await memory.write({ key: "mail.message/1", title: "Hello" });
      return { coverage: { read: 1204, of: 1210, failed: 6, items: { one: "message", other: "messages" } } };
    },
    "mail.open": async () => {
      await memory.write({ key: "mail.gate/open", title: "open" });
      return { opened: true };
    },
  };
}`;

/** The device's row in the list. */
function row(page: Page) {
  return page.getByRole("list", { name: DEVICES.list }).getByRole("listitem").filter({
    hasText: "Mail",
  });
}

/** Waits until the row's lamp is `lamp`. */
async function lampIs(page: Page, lamp: string): Promise<void> {
  const shown = row(page).locator("[data-lamp]");
  let last: string | null = null;
  await until(
    `the lamp ${lamp}`,
    async () => (last = await shown.getAttribute("data-lamp")) === lamp,
  )
    .catch((error) => {
      throw new Error(`${error.message}; it is ${last}`);
    });
}

Deno.test(
  "Devices: connect a folder by mouse and by keyboard, read now, pause, disconnect, allow access again",
  BROWSER_TEST,
  async (t) => {
    const browser = await launchBrowser();
    const installation = await Installation.create();
    try {
      // The person's home is the installation's temp folder, where the folders to connect are.
      installation.personHome = await Deno.realPath(installation.root);
      const site = await installation.project("site");
      const empty = await installation.project("empty");
      const maildir = join(installation.personHome, "maildir");
      const other = join(installation.personHome, "other-maildir");
      for (const folder of [maildir, other]) {
        await Deno.mkdir(join(folder, "cur"), { recursive: true });
      }
      const mail = await installation.writePackage({
        id: "mail",
        permissions: ["background", "account.folder"],
        handlers: ["mail.sync", "mail.open"],
        service: MAIL,
        manifest: {
          device: {
            name: "Mail",
            description: "Reads a Maildir folder: the one mbsync or offlineimap keep",
            modes: ["on-demand"],
            account: { kind: "folder", description: "Your Maildir (the folder holding cur/)" },
            tasks: {
              sync: { handler: "mail.sync", description: "Reads new and changed mail" },
            },
          },
        },
      });
      const calendar = await installation.writePackage({
        id: "cal",
        permissions: ["background", "account.remote"],
        handlers: ["cal.sync"],
        service: `export default function register() {
  return { "cal.sync": () => { throw new Error("the server answered a page it cannot read"); } };
}`,
        manifest: {
          device: {
            name: "Calendar",
            description: "Reads a CalDAV calendar",
            modes: ["on-demand"],
            account: { kind: "remote", description: "Your CalDAV server" },
            tasks: { sync: { handler: "cal.sync", description: "Reads new and changed events" } },
          },
        },
      });
      await installation.install(mail, site);
      await installation.install(calendar, site);
      await installation.serve();
      const devicesPath = (project: string, id?: string) =>
        `/p/${encodeURIComponent(project)}/devices${id ? `/${id}` : ""}`;

      await t.step("a project with no device says so, with the way to install one", async () => {
        const watched = await openPage(browser, installation, { path: devicesPath(empty) });
        const { page } = watched;
        await expectText(page.locator(".list-column"), DEVICES.empty);
        await watched.assertAccessible("Devices with no device");
        await watched.screenshot("devices-empty");
        await page.getByRole("button", { name: DEVICES.install }).click();
        await until("the Extensions area", () => page.url().includes("/extensions"));
        await page.getByRole("dialog").waitFor({ state: "visible" });
        await watched.close();
      });

      await t.step(
        "by mouse: connect a folder, read now (breathing, then steady with its coverage), pause, disconnect",
        async () => {
          const watched = await openPage(browser, installation, { path: devicesPath(site) });
          const { page } = watched;
          await page.getByRole("link", { name: DEVICES.area }).first().waitFor();
          await lampIs(page, "dark");
          await expectText(row(page), /Not connected/);
          await row(page).getByRole("link").click();
          await until("the device's address", () => page.url().endsWith("/devices/mail"));
          const detail = page.getByRole("main", { name: "Device" });
          await expectText(detail, /Reads a Maildir folder/);
          await expectText(detail, /Reads when you ask/);
          await expectText(detail, /No read has ended yet/);
          await expectText(detail, /Installing it did not/);
          await expectText(detail, /Connect a folder first\./);
          assert.equal(await detail.getByRole("button", { name: DEVICES.pause }).count(), 0);
          await watched.assertAccessible("a device not connected");
          await watched.screenshot("devices-disconnected");

          await detail.getByRole("button", { name: DEVICES.connect }).click();
          const browse = detail.getByRole("region", { name: DEVICES.browser("Mail") });
          await browse.getByRole("button", { name: "maildir", exact: true }).click();
          await expectText(browse.locator(".folder-here"), /maildir/);
          await watched.assertAccessible("the connect form's folder browser");
          await browse.getByRole("button", { name: DEVICES.connectFolder }).click();
          await expectText(
            detail.locator(".action-status").filter({ hasText: /Connected/ }),
            /Connected .*maildir/,
          );
          await lampIs(page, "steady");
          await expectText(detail.locator(".device-account-where"), maildir);

          await detail.getByRole("button", { name: DEVICES.readNow }).click();
          await lampIs(page, "breathing");
          await expectText(row(page), /Reading/);
          await watched.screenshot("devices-reading");
          await installation.call(site, "mail", "mail.open");
          await lampIs(page, "steady");
          await expectText(
            detail.locator(".device-coverage"),
            "Read 1,204 of 1,210 messages; 6 could not be parsed",
          );
          // The list says it too, so a device that read nothing is told from one that read.
          await expectText(row(page), /Read 1,204 of 1,210 messages; 6 could not be parsed/);
          const attempt = detail.locator(".device-attempt").first();
          await expectText(attempt, /Done/);
          await expectText(attempt, /You asked/);
          const when = attempt.locator("time");
          assert.ok(await when.getAttribute("title"), "the time itself on hover");
          const receipt = attempt.getByRole("link", { name: /Receipt of step 1/ });
          assert.match((await receipt.getAttribute("href")) ?? "", /\/extensions\/mail#receipt-/);
          // What it read is a link away, in Records.
          const kept = detail.getByRole("link", {
            name: "Open the mail.message records in Records",
          });
          await until("its records linked", async () => (await kept.count()) === 1);
          assert.match((await kept.getAttribute("href")) ?? "", /\/records\/mail\.message$/);
          await expectText(detail.locator(".device-record-kinds"), /mail\.message 1 record/);
          await watched.assertAccessible("a device after a read");
          await watched.screenshot("devices-read");

          await detail.getByRole("button", { name: DEVICES.pause }).click();
          await lampIs(page, "paused");
          await expectText(detail, /Paused: Mail keeps what it read/);
          const readNow = detail.getByRole("button", { name: DEVICES.readNow });
          assert.equal(await readNow.getAttribute("aria-disabled"), "true");
          await expectText(detail, /It is paused: resume it first/);
          await watched.assertAccessible("a paused device");
          await detail.getByRole("button", { name: DEVICES.resume }).click();
          await lampIs(page, "steady");

          await detail.getByRole("button", { name: DEVICES.disconnect }).click();
          await lampIs(page, "dark");
          await expectText(detail, /Disconnected: Mail reads nothing until you connect a folder/);
          // What it read stays, and the page says where it is.
          await expectText(detail.locator(".device-coverage"), /Read 1,204 of 1,210 messages/);
          await expectText(detail, /What it read before stays in Records; Reset… removes it/);
          // With no account, Pause would change nothing: it is not offered.
          await until(
            "no Pause",
            async () => (await detail.getByRole("button", { name: DEVICES.pause }).count()) === 0,
          );
          await watched.close();
        },
      );

      await t.step(
        "by keyboard only, dark and 560 px wide: connect, reset from its dialog, focus back",
        async () => {
          const watched = await openPage(browser, installation, {
            path: devicesPath(site, "mail"),
            colorScheme: "dark",
            viewport: { width: 560, height: 900 },
          });
          const { page } = watched;
          const detail = page.getByRole("main", { name: "Device" });
          const connect = detail.getByRole("button", { name: DEVICES.connect });
          await connect.waitFor();
          await tabTo(page, connect, 60);
          await page.keyboard.press("Enter");
          const heading = detail.locator(".device-connect-title");
          await until("the form's heading has the focus", () => hasFocus(heading));
          const browse = detail.getByRole("region", { name: DEVICES.browser("Mail") });
          const entry = browse.getByRole("button", { name: "maildir", exact: true });
          await entry.waitFor();
          await tabTo(page, entry, 40);
          await page.keyboard.press("Enter");
          await expectText(browse.locator(".folder-here"), /maildir/);
          const choose = browse.getByRole("button", { name: DEVICES.connectFolder });
          await tabTo(page, choose, 20);
          await page.keyboard.press("Enter");
          await lampIs(page, "steady").catch(async () => {
            // In a narrow window the list may stack under the detail; the page's lamp says it too.
            await until(
              "the page's lamp steady",
              async () =>
                (await detail.locator(".page-lamp [data-lamp]").getAttribute("data-lamp")) ===
                  "steady",
            );
          });
          await expectText(
            detail.locator(".action-status").filter({ hasText: /Connected/ }),
            /Connected .*maildir/,
          );
          await watched.assertAccessible("a device connected, dark and narrow");
          await watched.screenshot("devices-connected-dark-560");

          const reset = detail.getByRole("button", { name: DEVICES.reset });
          await tabTo(page, reset, 30);
          await page.keyboard.press("Enter");
          const dialog = page.getByRole("dialog", { name: DEVICES.resetDialog("Mail") });
          await expectText(dialog, /The records read from it/);
          await expectText(dialog, /The account: .*maildir, so it reads again from the start/);
          await watched.assertAccessible("the reset dialog");
          await watched.screenshot("devices-reset-dialog-dark");
          await page.keyboard.press("Escape");
          await until("the dialog closed", async () => (await dialog.count()) === 0);
          assert.ok(await hasFocus(reset), "the focus is back on Reset…");
          await page.keyboard.press("Enter");
          await dialog.waitFor();
          // Reset is the dialog's default: Enter takes it. Both of the package's records go: the
          // message its read wrote, and the gate the test opened.
          await page.keyboard.press("Enter");
          await expectText(
            detail.locator(".action-status").filter({ hasText: /Reset:/ }),
            /Reset: 2 records read from it removed, with its runs; the account is kept/,
          );
          await expectText(detail, /No read has ended yet/);
          assert.ok(await hasFocus(reset), "the focus is back on Reset…");
          await watched.close();
        },
      );

      await t.step(
        "a remote account: a refused origin keeps what was typed; the credential is never shown",
        async () => {
          const watched = await openPage(browser, installation, {
            path: devicesPath(site, "cal"),
            viewport: { width: 560, height: 900 },
            expectedConsole: [/400/],
          });
          const { page } = watched;
          const detail = page.getByRole("main", { name: "Device" });
          await detail.getByRole("button", { name: DEVICES.connect }).click();
          const origin = detail.getByLabel(DEVICES.originField);
          const credential = detail.getByLabel(DEVICES.credentialField);
          await until("the origin field has the focus", () => hasFocus(origin));
          assert.equal(await credential.getAttribute("type"), "password");
          await origin.fill("http://cal.example.com");
          await credential.fill("s3cret-token");
          await detail.getByRole("button", { name: "Connect", exact: true }).click();
          await expectText(detail.getByRole("alert"), /Could not connect: .*is not https/);
          assert.equal(await origin.inputValue(), "http://cal.example.com", "the origin is kept");
          assert.equal(await credential.inputValue(), "s3cret-token", "the credential is kept");
          await watched.assertAccessible("a remote account refused");
          await watched.screenshot("devices-remote-refused-560");
          await origin.fill("https://cal.example.com");
          await detail.getByRole("button", { name: "Connect", exact: true }).click();
          await expectText(detail.locator(".device-account-where"), "https://cal.example.com");
          await detail.getByRole("button", { name: `${DEVICES.signIn}…` }).waitFor();
          assert.doesNotMatch(
            await page.content(),
            /s3cret/,
            "the credential is nowhere on the page",
          );

          // A run that failed for no reason Sync can mend: red, and the run to review.
          await detail.getByRole("button", { name: DEVICES.readNow }).click();
          await expectText(detail.locator(".device-notice"), /Review the run/);
          await detail.getByRole("button", { name: DEVICES.review }).click();
          const review = detail.getByRole("region", { name: DEVICES.reviewPanel });
          await until("the review's heading has the focus", () => hasFocus(review.locator("h3")));
          await expectText(review.locator(".device-attempt"), /cannot read/);
          await watched.assertAccessible("a run to review");
          await watched.screenshot("devices-review-560");
          await review.getByRole("button", { name: DEVICES.markReviewed }).click();
          await expectText(review.getByRole("status"), /Marked reviewed: Calendar runs again/);
          assert.equal(await detail.locator(".device-notice").count(), 0, "the notice went");
          await watched.close();
        },
      );

      await t.step(
        "the consent, by keyboard: On asks where, Allow gives it, Off takes it back",
        async () => {
          const watched = await openPage(browser, installation, {
            path: devicesPath(site, "mail"),
          });
          const { page } = watched;
          const detail = page.getByRole("main", { name: "Device" });
          const group = detail.getByRole("radiogroup", { name: DEVICES.consent });
          await expectText(detail, /On lets Sync send the private content Mail reads/);
          const off = group.getByRole("radio", { name: "Off" });
          assert.ok(await off.isChecked(), "no consent is given by installing or connecting");
          await off.focus();
          await page.keyboard.press("ArrowRight");
          const endpoint = detail.getByLabel(DEVICES.endpointField);
          await until("the endpoint field has the focus", () => hasFocus(endpoint));
          await page.keyboard.type("http://127.0.0.1:11434");
          await page.keyboard.press("Enter");
          await expectText(
            detail.locator(".action-status").filter({ hasText: /Allowed/ }),
            "Allowed: what Mail reads may be processed at http://127.0.0.1:11434.",
          );
          assert.ok(await group.getByRole("radio", { name: "On" }).isChecked());
          await watched.assertAccessible("a consent given");
          await group.getByRole("radio", { name: "On" }).focus();
          await page.keyboard.press("ArrowLeft");
          await expectText(
            detail.locator(".action-status").filter({ hasText: /Taken back/ }),
            /Taken back: nothing Mail read is processed from now on/,
          );
          assert.ok(await off.isChecked());
          await watched.close();
        },
      );

      await t.step(
        "a folder gone: red with its notice, and Allow access connects another",
        async () => {
          await Deno.remove(maildir, { recursive: true });
          const watched = await openPage(browser, installation, {
            path: devicesPath(site, "mail"),
            colorScheme: "dark",
            reducedMotion: true,
          });
          const { page } = watched;
          const detail = page.getByRole("main", { name: "Device" });
          await detail.getByRole("button", { name: DEVICES.readNow }).click();
          await lampIs(page, "red");
          await expectText(
            detail.locator(".action-status").filter({ hasText: /Failed/ }),
            /Failed: .*maildir is gone or cannot be read/,
          );
          await expectText(detail.locator(".device-attempt").first(), /Failed/);
          await expectText(row(page).locator(".notice"), /cannot read its account/);
          await expectText(detail.locator(".device-notice"), /Connect the folder again/);
          await watched.assertAccessible("a red device");
          await watched.screenshot("devices-red");
          await detail.getByRole("button", { name: DEVICES.allowAccess }).click();
          const browse = detail.getByRole("region", { name: DEVICES.browser("Mail") });
          await browse.getByRole("button", { name: "other-maildir", exact: true }).click();
          await expectText(browse.locator(".folder-here"), /other-maildir/);
          await browse.getByRole("button", { name: DEVICES.connectFolder }).click();
          await lampIs(page, "steady");
          await expectText(detail.locator(".device-account-where"), other);
          assert.equal(await detail.locator(".device-notice").count(), 0, "the notice went");

          // Under reduced motion a reading lamp holds still and says "Running".
          await detail.getByRole("button", { name: DEVICES.readNow }).click();
          await lampIs(page, "breathing");
          await expectText(row(page), /Running/);
          await installation.call(site, "mail", "mail.open");
          await lampIs(page, "steady");
          await watched.close();
        },
      );
    } finally {
      await browser.close();
      await installation.close();
    }
  },
);
