import assert from "node:assert/strict";
import {
  BROWSER_TEST,
  expectGone,
  expectText,
  focusedText,
  hasFocus,
  Installation,
  launchBrowser,
  openPage,
  tabTo,
} from "./_browser.ts";
import { START, WINDOW } from "./_names.ts";
import { SERVE_RUN_ARGS } from "../internal/cli.ts";

/** A package whose `opened` handler writes a record, and one whose `opened` handler fails. */
function openedPackages(installation: Installation) {
  const noting = installation.writePackage({
    id: "greeter",
    handlers: ["greeter.look"],
    service: `import { memory } from "@sync/extension-api/service";
export default function register() {
  return { "greeter.look": async () => { await memory.write({ key: "greeter.seen/1", title: "seen" }); } };
}`,
    manifest: { lifecycle: { opened: "greeter.look" } },
  });
  const failing = installation.writePackage({
    id: "grumpy",
    handlers: ["grumpy.look"],
    service: `export default function register() {
  return { "grumpy.look": () => { throw new Error("the tracker is down"); } };
}`,
    manifest: { lifecycle: { opened: "grumpy.look" } },
  });
  return Promise.all([noting, failing]);
}

Deno.test("the start page and the page's own answers", BROWSER_TEST, async (t) => {
  const browser = await launchBrowser();
  const installation = await Installation.create();
  try {
    const site = await installation.project("site");
    const notes = await installation.project("notes");
    for (const folder of await openedPackages(installation)) {
      await installation.install(folder, site);
    }
    await installation.serve();
    const cookie = `sync_token_${new URL(installation.origin).port}=${installation.token}`;

    await t.step(
      "the page answers with a Content-Security-Policy of default-src 'self' and no inline script",
      async () => {
        const response = await fetch(`${installation.origin}/`, { headers: { cookie } });
        assert.equal(response.status, 200);
        const csp = response.headers.get("content-security-policy") ?? "";
        assert.match(csp, /(^|;)\s*default-src 'self'(;|$)/);
        assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/);
        const html = await response.text();
        const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)];
        assert.ok(scripts.length > 0, "the page loads its script");
        for (const [, attributes, body] of scripts) {
          assert.match(attributes, /\bsrc="\/assets\//, "every script is a file of the app");
          assert.equal(body.trim(), "", "no inline script");
        }
        assert.doesNotMatch(html, /<style\b|\sstyle=|\son[a-z]+=/i, "no inline style or handler");
      },
    );

    await t.step("`GET /?token=` sets the cookie and sends the page on to `/`", async () => {
      const response = await fetch(`${installation.origin}/?token=${installation.token}`, {
        redirect: "manual",
      });
      await response.body?.cancel();
      assert.equal(response.status, 303);
      assert.equal(response.headers.get("location"), "/");
      const setCookie = response.headers.get("set-cookie") ?? "";
      assert.match(setCookie, new RegExp(`^sync_token_\\d+=${installation.token};`));
      assert.match(setCookie, /HttpOnly/i);
      assert.match(setCookie, /SameSite=Strict/i);
    });

    await t.step(
      "with the mouse, one click on Open lands in the project's window, which says how its `opened` handlers ran",
      async () => {
        const watched = await openPage(browser, installation);
        const { page } = watched;
        await page.getByRole("heading", { name: START.openHeading }).waitFor();
        await watched.assertAccessible("the empty start page");
        await page.getByLabel(START.pathField).click();
        await page.getByLabel(START.pathField).fill(site);
        await page.evaluate("window.__marker = 'no reload'");
        await page.getByRole("button", { name: START.openButton, exact: true }).click();
        await page.waitForURL((url) => url.pathname.startsWith("/p/"));
        assert.equal(new URL(page.url()).pathname, `/p/${encodeURIComponent(site)}/extensions`);
        const status = page.getByRole("status").filter({ hasText: "Opened" });
        await expectText(status, /Opened site/);
        await expectText(status, /greeter\.look\s+ran: ok/);
        await expectText(status, /grumpy\.look\s+failed: .*the tracker is down/);
        // The focus the Open button had is on what opening did, not lost.
        assert.ok(await hasFocus(status));
        assert.equal(await page.evaluate("window.__marker"), "no reload");
        await watched.assertAccessible("the project's window after Open");
        await watched.screenshot("window-opened-light");
        // Each line links to its package's page, where its receipt is.
        await status.getByRole("link", { name: /receipt on grumpy's page/ }).click();
        await page.waitForURL((url) => url.pathname.endsWith("/extensions/grumpy"));
        await expectText(page.getByRole("main"), /the tracker is down/);
        // Said once: back in the list, the line is gone.
        await page.goBack();
        await page.getByRole("list", { name: WINDOW.extensionList }).waitFor();
        await expectGone(page.getByRole("status").filter({ hasText: "Opened" }));
        // Back on the start page, the project leads the recent ones.
        await page.getByRole("link", { name: WINDOW.allProjects }).click();
        const recent = page.getByRole("region", { name: START.recentHeading });
        await expectText(recent.getByRole("link"), /site/);
        await expectText(recent, site);
        await expectText(recent, /2 extensions/);
        await watched.close();
      },
    );

    await t.step(
      "with the keyboard alone, Tab, type and Enter open a project's window",
      async () => {
        const watched = await openPage(browser, installation, { colorScheme: "dark" });
        const { page } = watched;
        const field = page.getByLabel(START.pathField);
        await field.waitFor();
        await tabTo(page, field);
        await page.keyboard.type(notes);
        await page.keyboard.press("Enter");
        await page.waitForURL((url) => url.pathname.startsWith("/p/"));
        assert.equal(new URL(page.url()).pathname, `/p/${encodeURIComponent(notes)}/extensions`);
        const status = page.getByRole("status").filter({ hasText: "Opened" });
        await expectText(status, /Opened notes/);
        await expectText(status, /No extension has anything to do when it opens/);
        assert.match(await focusedText(page), /Opened notes/);
        await watched.assertAccessible("the project's window in dark after Open");
        await watched.screenshot("window-opened-dark");
        // Dismiss takes the line away.
        await page.keyboard.press("Tab");
        assert.match(await focusedText(page), /Dismiss/);
        await page.keyboard.press("Enter");
        await expectGone(status);
        await watched.assertAccessible("the project's window in dark after Open");
        await watched.screenshot("window-opened-dark");
        await watched.close();
      },
    );

    await t.step("a folder that is not there is refused on the start page, path kept", async () => {
      const watched = await openPage(browser, installation, {
        expectedConsole: [/status of 404/],
      });
      const { page } = watched;
      const gone = `${site}-gone`;
      await page.getByLabel(START.pathField).fill(gone);
      await page.getByRole("button", { name: START.openButton, exact: true }).click();
      await expectText(page.getByRole("alert"), /gone/);
      assert.equal(new URL(page.url()).pathname, "/");
      assert.equal(await page.getByLabel(START.pathField).inputValue(), gone);
      await watched.close();
    });

    await t.step("a relative path is refused in words and stays in the field", async () => {
      // Refused in the page: nothing is sent, so no refusal of the server is logged.
      const watched = await openPage(browser, installation);
      const { page } = watched;
      await page.getByLabel(START.pathField).fill("projects/site");
      await page.getByRole("button", { name: START.openButton, exact: true }).click();
      const alert = page.getByRole("alert");
      await expectText(
        alert,
        `"projects/site" is not an absolute path: give the project folder's full path, ` +
          `starting with /.`,
      );
      // In the install dialog's words, not the API's field-by-field refusal.
      assert.doesNotMatch(await alert.innerText(), /^path:|is relative/);
      assert.equal(await page.getByLabel(START.pathField).inputValue(), "projects/site");
      await watched.screenshot("start-open-relative-light");
      await watched.close();
    });
  } finally {
    await installation.close();
    await browser.close();
  }
});

Deno.test("the tests' serve runs with the flags of `deno task serve`", () => {
  const config = JSON.parse(
    Deno.readTextFileSync(new URL("../../deno.json", import.meta.url)),
  ) as { tasks: Record<string, string> };
  assert.deepEqual(
    ["deno", ...SERVE_RUN_ARGS, "serve"].join(" "),
    config.tasks.serve,
  );
});
