import assert from "node:assert/strict";
import {
  BROWSER_TEST,
  expectText,
  focusedText,
  Installation,
  launchBrowser,
  openPage,
  tabTo,
} from "./_browser.ts";
import { START } from "./_names.ts";
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

    await t.step("with the mouse, Open opens a project and says how its handlers ran", async () => {
      const watched = await openPage(browser, installation);
      const { page } = watched;
      await page.getByRole("heading", { name: START.openHeading }).waitFor();
      await watched.assertAccessible("the empty start page");
      await page.getByLabel(START.pathField).click();
      await page.getByLabel(START.pathField).fill(site);
      await page.getByRole("button", { name: START.openButton, exact: true }).click();
      const status = page.getByRole("status").filter({ hasText: "Opened" });
      await expectText(status, /Opened site/);
      await expectText(status, /greeter\.look\s+ran/);
      await expectText(status, /grumpy\.look\s+failed: .*the tracker is down/);
      const recent = page.getByRole("region", { name: START.recentHeading });
      await expectText(recent.getByRole("link"), /site/);
      await expectText(recent, site);
      await expectText(recent, /2 extensions/);
      await watched.assertAccessible("the start page after opening a project");
      await watched.screenshot("start-opened-light");
      await watched.close();
    });

    await t.step("with the keyboard alone, Tab, type and Enter open a project", async () => {
      const watched = await openPage(browser, installation, { colorScheme: "dark" });
      const { page } = watched;
      const field = page.getByLabel(START.pathField);
      await field.waitFor();
      await tabTo(page, field);
      await page.keyboard.type(notes);
      await page.keyboard.press("Enter");
      const status = page.getByRole("status").filter({ hasText: "Opened" });
      await expectText(status, /Opened notes — no extension has anything to do when it opens/);
      const recent = page.getByRole("region", { name: START.recentHeading });
      await expectText(recent, notes);
      // Last opened first.
      const rows = await recent.getByRole("link").allTextContents();
      assert.match(rows[0], /notes/);
      assert.match(rows[1], /site/);
      // Tab on to the link to the project and follow it with Enter.
      await page.keyboard.press("Tab");
      await page.keyboard.press("Tab");
      assert.match(await focusedText(page), /Go to notes/);
      await page.keyboard.press("Enter");
      await page.waitForURL((url) => url.pathname.startsWith("/p/"));
      assert.equal(new URL(page.url()).pathname, `/p/${encodeURIComponent(notes)}/extensions`);
      await watched.assertAccessible("the start page in dark");
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
