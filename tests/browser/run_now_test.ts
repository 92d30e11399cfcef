import assert from "node:assert/strict";
import { join } from "node:path";
import {
  BROWSER_TEST,
  expectText,
  gatePackage,
  hasFocus,
  Installation,
  launchBrowser,
  openPage,
  type Page,
  until,
} from "./_browser.ts";
import { RECEIPT_ID_ATTRIBUTE, RUN } from "./_names.ts";

const GREETER = `export default function register() {
  return {
    "greeter.greet": (payload) => {
      console.log("greeting", payload.name);
      console.warn("twice\\non two lines");
      return { greeting: "Hello, " + payload.name };
    },
    "greeter.count": () => "three greetings so far",
    "greeter.setup": () => null,
    "greeter.fail": () => {
      throw new RangeError("the guest list is empty");
    },
  };
}`;

const ASKER = `import { work } from "@sync/extension-api/service";
export default function register() {
  return {
    "asker.ask": async () => {
      const { key } = await work.order({ kind: "agent.session", agent: "demo",
        title: "Look at note 7", prompt: { text: "Say hello" }, onInterrupted: "wait",
        about: "asker.note/7" });
      return { key };
    },
  };
}`;

/** The row of a handler in "What it adds". */
function handlerRow(page: Page, handler: string) {
  return page.getByRole("list", { name: "Handlers" }).getByRole("listitem").filter({
    hasText: handler,
  });
}

Deno.test(
  "Run now calls a handler from its row and shows its answer and receipt",
  BROWSER_TEST,
  async (t) => {
    const browser = await launchBrowser();
    const installation = await Installation.create();
    try {
      const project = await installation.project("site");
      const greeter = await installation.writePackage({
        id: "greeter",
        handlers: ["greeter.greet", "greeter.count", "greeter.setup", "greeter.fail"],
        service: GREETER,
        manifest: {
          handlers: {
            "greeter.greet": {
              description: "Greets a name",
              agent: {
                description: "Greet someone by name",
                input: {
                  type: "object",
                  properties: { name: { type: "string", description: "Who to greet" } },
                  required: ["name"],
                  additionalProperties: false,
                },
              },
            },
            "greeter.count": { description: "Counts the greetings" },
            "greeter.setup": { description: "Sets up" },
            "greeter.fail": { description: "Fails" },
          },
          lifecycle: { installed: "greeter.setup" },
        },
      });
      const asker = await installation.writePackage({
        id: "asker",
        permissions: ["background", "work.agent"],
        handlers: ["asker.ask"],
        service: ASKER,
      });
      const gate = await installation.writePackage(gatePackage("gate"));
      for (const folder of [greeter, asker, gate]) await installation.install(folder, project);
      await installation.serve();
      const pagePath = (id: string) => `/p/${encodeURIComponent(project)}/extensions/${id}`;

      await t.step(
        "with a payload: wrong JSON is named by line and column, then it runs",
        async () => {
          const watched = await openPage(browser, installation, { path: pagePath("greeter") });
          const { page } = watched;
          const row = handlerRow(page, "greeter.greet");
          await row.getByRole("button", { name: RUN.runNowWithPayload }).click();
          const field = row.getByLabel(RUN.payloadField("greeter.greet"));
          assert.ok(await hasFocus(field), "the editor takes the focus");
          assert.equal(await field.inputValue(), '{\n  "name": ""\n}', "started from its fields");
          await expectText(row, /It takes: name \(text, required\)/);

          const receiptsBefore = await page.locator(`[${RECEIPT_ID_ATTRIBUTE}]`).count();
          await field.fill('{\n  "name": "Ada",\n}');
          await row.getByRole("button", { name: RUN.run("greeter.greet") }).click();
          await expectText(
            row.getByRole("alert"),
            /Line 3, column 1: a property name in double quotes/,
          );
          assert.equal(await field.getAttribute("aria-invalid"), "true");
          await watched.assertAccessible("a payload that is not JSON");
          await watched.screenshot("run-now-bad-json");

          await field.fill('{ "name": 3 }');
          await expectText(row.getByRole("alert"), /name: expected text, got the number 3/);
          await row.getByRole("button", { name: RUN.run("greeter.greet") }).click();
          assert.equal(
            await page.locator(`[${RECEIPT_ID_ATTRIBUTE}]`).count(),
            receiptsBefore,
            "nothing was sent",
          );

          await field.fill('{ "name": "Ada" }');
          assert.equal(
            await field.getAttribute("aria-invalid"),
            null,
            "fixed, it is no longer marked",
          );
          await field.press("Control+Enter");
          const answer = row.locator("pre.run-answer");
          await expectText(answer, /"greeting": "Hello, Ada"/);
          await expectText(row, /Done/);
          await watched.assertAccessible("Run now's answer");
          await watched.screenshot("run-now-answer");

          await row.getByRole("link", { name: RUN.seeReceipt }).click();
          const receipt = page.locator(`[${RECEIPT_ID_ATTRIBUTE}]`).first();
          await until("the receipt has the focus", () => hasFocus(receipt));
          await expectText(receipt, /greeter\.greet/);
          await expectText(receipt, /By you, with Run now/);

          await receipt.getByRole("button", { name: RUN.console }).click();
          const lines = receipt.locator("pre.console-lines");
          await expectText(lines, /greeting Ada/);
          await expectText(lines, /warn: twice\non two lines/);
          await watched.assertAccessible("a receipt's console lines");
          await watched.screenshot("receipt-console-lines");
          await watched.close();
        },
      );

      await t.step(
        "a handler with no payload runs at once; one Sync runs says why not",
        async () => {
          const watched = await openPage(browser, installation, {
            path: pagePath("greeter"),
            colorScheme: "dark",
            viewport: { width: 560, height: 900 },
          });
          const { page } = watched;
          const count = handlerRow(page, "greeter.count");
          await count.getByRole("button", { name: RUN.runNow, exact: true }).click();
          await expectText(count.locator("pre.run-answer"), "three greetings so far");

          const fail = handlerRow(page, "greeter.fail");
          await fail.getByRole("button", { name: RUN.runNow, exact: true }).click();
          const failure = fail.locator(".run-error");
          await expectText(failure, /the guest list is empty/);
          const words = (await failure.textContent()) ?? "";
          assert.doesNotMatch(words, /^\s*\w+Error:/, `it starts in words: ${words}`);

          const setup = handlerRow(page, "greeter.setup");
          const button = setup.getByRole("button", { name: RUN.runNow, exact: true });
          assert.equal(await button.getAttribute("aria-disabled"), "true");
          await expectText(setup, /Sync runs greeter\.setup when Greeter is installed/);
          const before = await page.locator(`[${RECEIPT_ID_ATTRIBUTE}]`).count();
          await button.dispatchEvent("click");
          assert.equal(await page.locator(`[${RECEIPT_ID_ATTRIBUTE}]`).count(), before);
          await watched.assertAccessible("Run now in dark, 560 px wide");
          await watched.screenshot("run-now-dark");
          await watched.close();
        },
      );

      await t.step("where nothing approved serves, Run now says what to do", async () => {
        const wider = await installation.writePackage({
          id: "wider",
          handlers: ["wider.run"],
          service: `export default function register() { return { "wider.run": () => 1 }; }`,
        });
        await installation.install(wider, project);
        // Its linked folder asks for more in place: nothing approved is left to serve it.
        const file = join(wider, "manifest.json");
        const manifest = JSON.parse(await Deno.readTextFile(file));
        manifest.permissions.push("net:tracker.example.com");
        await Deno.writeTextFile(file, JSON.stringify(manifest));
        const watched = await openPage(browser, installation, { path: pagePath("wider") });
        const row = handlerRow(watched.page, "wider.run");
        const button = row.getByRole("button", { name: RUN.runNow, exact: true });
        await until(
          "Run now is disabled",
          async () => await button.getAttribute("aria-disabled") === "true",
        );
        const reason = await row.locator(".run-why").textContent();
        assert.match(reason ?? "", /approv/i, `it says why: ${reason}`);
        await watched.assertAccessible("Run now where nothing approved serves");
        await watched.screenshot("run-now-not-approved");
        await watched.close();
      });

      await t.step("Stop calls a run off, and its receipt says cancelled", async () => {
        const watched = await openPage(browser, installation, { path: pagePath("gate") });
        const { page } = watched;
        const row = handlerRow(page, "gate.wait");
        await row.getByRole("button", { name: RUN.withPayload }).click();
        await row.getByLabel(RUN.payloadField("gate.wait")).fill('{ "gate": "never" }');
        await row.getByRole("button", { name: RUN.run("gate.wait") }).click();
        await expectText(row, /Running gate\.wait…/);
        await row.getByRole("button", { name: RUN.stop }).click();
        await expectText(row, /Stopped: the call was called off/);
        const receipt = page.locator(`[${RECEIPT_ID_ATTRIBUTE}]`).first();
        await expectText(receipt, /Cancelled/);
        await watched.close();
      });

      await t.step("serve's terminal says nothing of Deno's request signal after Run now", () => {
        const warned = installation.serveLines.filter((line) =>
          /request\.signal|legacy/.test(line)
        );
        assert.deepEqual(warned, [], "no warning about how a request's signal aborts");
      });

      await t.step(
        "a receipt links to the conversation its call began, and that to what it is about",
        async () => {
          const watched = await openPage(browser, installation, { path: pagePath("asker") });
          const { page } = watched;
          const row = handlerRow(page, "asker.ask");
          await row.getByRole("button", { name: RUN.runNow, exact: true }).click();
          await expectText(row.locator("pre.run-answer"), /"key": "work-/);
          const receipt = page.locator(`[${RECEIPT_ID_ATTRIBUTE}]`).first();
          const link = receipt.getByRole("link", { name: RUN.conversation });
          await watched.assertAccessible("a receipt with the conversation it began");
          await link.click();
          await until(
            "the address is the conversation's",
            () => /\/chat\/work-[^/]+$/.test(page.url()),
          );
          const about = page.getByRole("link", { name: RUN.aboutRecord });
          await expectText(about, "asker.note/7");
          assert.equal(
            await about.getAttribute("href"),
            `/p/${encodeURIComponent(project)}/records/asker.note/7`,
          );
          await page.getByRole("heading", { name: "Look at note 7" }).waitFor();
          await watched.assertAccessible("a conversation with what it is about");
          await watched.screenshot("conversation-about-link");
          await watched.close();
        },
      );
    } finally {
      await installation.close();
      await browser.close();
    }
  },
);
