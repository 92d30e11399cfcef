import assert from "node:assert/strict";
import {
  BROWSER_TEST,
  expectText,
  gatePackage,
  Installation,
  launchBrowser,
  openPage,
  quietPackage,
  until,
} from "./_browser.ts";
import { WINDOW } from "./_names.ts";

Deno.test("a lamp breathes while a handler runs, without a reload", BROWSER_TEST, async (t) => {
  const browser = await launchBrowser();
  const installation = await Installation.create();
  try {
    const project = await installation.project("site");
    await installation.install(await installation.writePackage(gatePackage("gate")), project);
    await installation.install(
      await installation.writePackage(quietPackage("pair", PAIR)),
      project,
    );
    await installation.serve();

    for (const reducedMotion of [false, true]) {
      await t.step(
        `a call from another process turns it breathing, then steady (${
          reducedMotion ? "reduced motion" : "motion"
        })`,
        async () => {
          const path = `/p/${encodeURIComponent(project)}/extensions`;
          const watched = await openPage(browser, installation, { path, reducedMotion });
          const { page } = watched;
          const row = page.getByRole("list", { name: WINDOW.extensionList }).getByRole("listitem")
            .filter({ hasText: "Gate" });
          const lamp = row.locator(".lamp-wrap");
          await expectText(lamp, "ready");
          await page.evaluate("window.__marker = 'no reload'");
          const gate = { gate: reducedMotion ? "still" : "moving" };
          const waiting = installation.call(project, "gate", "gate.wait", gate);
          try {
            await until(
              "a breathing lamp",
              async () => /\blamp-breathing\b/.test(await lamp.getAttribute("class") ?? ""),
            );
            const label = lamp.locator(".lamp-label");
            await label.waitFor();
            assert.equal(
              (await label.innerText()).trim(),
              reducedMotion ? "Running" : "running now",
            );
            // The name comes first: the circle before it, the lamp's words under it, lined up.
            const name = row.locator(".extension-name");
            const [nameBox, labelBox, circleBox] = await Promise.all([
              name.boundingBox(),
              label.boundingBox(),
              row.locator(".lamp").boundingBox(),
            ]);
            assert.ok(
              circleBox!.x + circleBox!.width <= nameBox!.x,
              "the circle is before the name",
            );
            assert.ok(labelBox!.y >= nameBox!.y + nameBox!.height - 1, "the words are under it");
            const wordsStart = labelBox!.x +
              await label.evaluate((element) =>
                parseFloat(element.ownerDocument.defaultView!.getComputedStyle(element).paddingLeft)
              );
            assert.ok(Math.abs(wordsStart - nameBox!.x) < 1, "the words line up with the name");
            assert.match(await row.locator(".extension-row-top").innerText(), /^Gate\s/);
            assert.equal(await page.evaluate("window.__marker"), "no reload");
            if (!reducedMotion) await watched.screenshot("lamp-breathing");
          } finally {
            const opened = await installation.call(project, "gate", "gate.open", gate);
            assert.equal(opened.code, 0, opened.stderr);
            const waited = await waiting;
            assert.equal(waited.code, 0, waited.stderr);
            assert.match(waited.stdout, /"opened": ?true/);
          }
          await until(
            "a steady lamp",
            async () => /\blamp-steady\b/.test(await lamp.getAttribute("class") ?? ""),
          );
          await expectText(lamp, "ready");
          assert.equal(await page.evaluate("window.__marker"), "no reload");
          await watched.close();
        },
      );
    }

    await t.step(
      "a handler failing again and again turns its package red, naming it, beside a sibling that " +
        "works; its next success clears it, without a reload",
      async () => {
        const path = `/p/${encodeURIComponent(project)}/extensions`;
        const list = await openPage(browser, installation, { path });
        const item = list.page.getByRole("list", { name: WINDOW.extensionList })
          .getByRole("listitem").filter({ hasText: "Pair" });
        const page = await openPage(browser, installation, { path: `${path}/pair` });
        const header = page.page.locator(".page-header");
        await expectText(item.locator(".lamp-wrap"), "ready");
        await list.page.evaluate("window.__marker = 'no reload'");
        await page.page.evaluate("window.__marker = 'no reload'");
        const call = async (handler: string, payload: { fail?: boolean }) => {
          const result = await installation.call(project, "pair", handler, payload);
          assert.equal(result.code === 0, !payload.fail, result.stderr);
        };
        for (let i = 0; i < 3; i++) {
          await call("pair.flaky", { fail: true });
          await call("pair.run", {});
        }
        const notice =
          /Its handler pair\.flaky failed its last 3 attempts.*the tracker answered 503/;
        await expectText(item.locator(".notice"), notice);
        await expectText(item.locator(".lamp-wrap"), "needs you");
        await expectText(header.locator(".notice"), notice);
        await expectText(header.locator(".lamp-wrap"), "needs you");
        await list.screenshot("lamp-handler-failing-list");
        await page.screenshot("lamp-handler-failing-page");
        const dark = await openPage(browser, installation, {
          path: `${path}/pair`,
          colorScheme: "dark",
        });
        try {
          await expectText(dark.page.locator(".page-header .notice"), notice);
          await dark.screenshot("lamp-handler-failing-page-dark");
        } finally {
          await dark.close();
        }

        await call("pair.flaky", { fail: false });
        await expectText(item.locator(".lamp-wrap"), "ready");
        await expectText(header.locator(".lamp-wrap"), "ready");
        assert.equal(await item.locator(".notice").count(), 0);
        assert.equal(await header.locator(".notice").count(), 0);
        assert.equal(await list.page.evaluate("window.__marker"), "no reload");
        assert.equal(await page.page.evaluate("window.__marker"), "no reload");
        await list.close();
        await page.close();
      },
    );
  } finally {
    await installation.close();
    await browser.close();
  }
});

/** `pair.run` works; `pair.flaky` throws when told to. */
const PAIR = {
  handlers: ["pair.run", "pair.flaky"],
  service: `export default function register() {
  return {
    "pair.run": () => ({ ok: true }),
    "pair.flaky": (p) => {
      if (p?.fail) throw new Error("the tracker answered 503");
      return { ok: true };
    },
  };
}
`,
};
