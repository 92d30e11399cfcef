import assert from "node:assert/strict";
import axe from "axe-core";
import {
  BROWSER_TEST,
  expectCount,
  expectText,
  Installation,
  launchBrowser,
  openPage,
  quietPackage,
  until,
} from "./_browser.ts";
import { SCREEN, WINDOW } from "./_names.ts";

/**
 * The board's screen: a list of its records and a button that adds one
 * through its handler; then it tries, and writes down, every way out of its
 * frame; then it takes its own end of the bridge and sends what no runtime
 * would, writing down the answers.
 */
const BOARD_SCREEN = `export async function activate(ctx) {
  const heading = document.createElement("h1");
  heading.textContent = ctx.screen.name;
  const button = document.createElement("button");
  button.className = "button primary";
  button.textContent = "Add an item";
  const status = document.createElement("p");
  status.setAttribute("role", "status");
  const list = document.createElement("ul");
  list.className = "screen-list";
  list.setAttribute("aria-label", "Items");
  document.body.append(heading, button, status, list);
  const read = async () => {
    const { records } = await ctx.memory.list({ kind: "board.item" });
    list.replaceChildren(...records.map((record) => {
      const item = document.createElement("li");
      item.textContent = record.title;
      return item;
    }));
  };
  button.addEventListener("click", async () => {
    try {
      const answer = await ctx.handlers.call("board.add", { title: "From the screen" });
      status.textContent = "Added " + answer.added;
    } catch (error) {
      status.textContent = "Failed: " + error.message;
    }
    await read();
  });
  await read();

  const escapes = {};
  try {
    // A name check cannot see: the frame's policy is what stops it.
    const get = self[["fe", "tch"].join("")];
    const response = await get("/api/extensions?project=" + encodeURIComponent(ctx.screen.project));
    escapes.fetch = "read " + response.status + " " + (await response.text()).slice(0, 60);
  } catch (error) {
    escapes.fetch = "refused: " + error.name;
  }
  try {
    escapes.cookie = "read " + JSON.stringify(document.cookie);
  } catch (error) {
    escapes.cookie = "refused: " + error.name;
  }
  try {
    escapes.parent = "read " + parent.document.title;
  } catch (error) {
    escapes.parent = "refused: " + error.name;
  }
  try {
    top.location.href = "/api/health";
    escapes.top = "asked";
  } catch (error) {
    escapes.top = "refused: " + error.name;
  }
  try {
    escapes.open = window.open("/") ? "opened" : "refused: no window";
  } catch (error) {
    escapes.open = "refused: " + error.name;
  }
  try {
    // Only what the manifest declares starts; a shell is not among it.
    await ctx.host.spawn("sh", { args: ["-c", "id"] });
    escapes.spawn = "started";
  } catch (error) {
    escapes.spawn = "refused: " + error.name;
  }
  const escaped = document.createElement("pre");
  escaped.id = "escapes";
  escaped.textContent = JSON.stringify(escapes);
  document.body.append(escaped);

  // The bridge's own port, taken the way any code in the frame could.
  let port = null;
  const post = MessagePort.prototype.postMessage;
  MessagePort.prototype.postMessage = function (...args) {
    port = this;
    return post.apply(this, args);
  };
  await ctx.memory.list({ kind: "board.item", limit: 1 });
  MessagePort.prototype.postMessage = post;
  const answers = [];
  port.addEventListener("message", (event) => answers.push(event.data));
  port.postMessage("not an object");
  port.postMessage({ type: "request", id: 9001, method: "files.read", params: { path: "/etc/passwd" } });
  port.postMessage({ type: "request", id: 9002, method: "handlers.call", params: { name: 5 } });
  port.postMessage({ type: "request", method: "memory.list", params: {} });
  port.postMessage({ type: "request", id: 9003, method: "handlers.call", params: { name: "other.ping" } });
  await new Promise((resolve) => setTimeout(resolve, 1500));
  const bridge = document.createElement("pre");
  bridge.id = "bridge";
  bridge.textContent = JSON.stringify(answers.filter((a) => a.id === null || a.id > 9000));
  document.body.append(bridge);
}
`;

/** Console errors the board's screen provokes on purpose, as the browser words them. */
const PROVOKED = [
  /CSP violation: connect-src/,
  /violates the following Content Security Policy directive: "connect-src 'none'"/,
  /Refused to connect/,
  /Failed to fetch/,
  /Unsafe attempt to initiate navigation|allow-top-navigation|sandboxed/i,
  /Blocked opening|allow-popups/i,
  /Sync refused a message of this screen/,
  /not allowed to navigate|permission to navigate/i,
  // The app's own call for the screen's request of another package's handler, refused by the host.
  /Failed to load resource: the server responded with a status of 404/,
];

Deno.test(
  "a package's screen shows in the window, sandboxed, reaching only ctx",
  BROWSER_TEST,
  async (t) => {
    const browser = await launchBrowser();
    const installation = await Installation.create();
    try {
      const project = await installation.project("site");
      const board = await installation.writePackage(quietPackage("board", {
        handlers: ["board.add"],
        permissions: ["background", "host.processes"],
        service: `import { memory } from "@sync/extension-api/service";
export default function register() {
  return {
    "board.add": async (payload) => {
      const title = typeof payload?.title === "string" ? payload.title : "untitled";
      const { records } = await memory.list({ kind: "board.item", limit: 500 });
      await memory.write({ key: "board.item/" + (records.length + 1), title });
      return { added: title };
    },
  };
}`,
        types: { "item.json": "board.item" },
        ui: "export function activate() {}\n",
        manifest: { host: { processes: [{ id: "cat", program: "cat" }] } },
      }));
      await installation.install(board, project);
      // The folder is linked: what the screen does is written after check has read it, as an
      // author might, since check cannot see through a name made at run time.
      await Deno.writeTextFile(`${board}/ui/index.js`, BOARD_SCREEN);
      const broken = await installation.writePackage(quietPackage("broken", {
        ui: `export function activate() { throw new RangeError("the board is missing"); }\n`,
      }));
      await installation.install(broken, project);
      const plain = await installation.writePackage(quietPackage("plain"));
      await installation.install(plain, project);
      await installation.serve();
      const windowPath = `/p/${encodeURIComponent(project)}/extensions`;

      await t.step("each package with a screen has an entry in the navigator", async () => {
        const watched = await openPage(browser, installation, {
          path: windowPath,
          expectedConsole: PROVOKED,
        });
        const { page } = watched;
        const screens = page.getByRole("list", { name: SCREEN.navigatorList });
        await expectText(screens, /Board/);
        assert.deepEqual(
          await screens.getByRole("link").evaluateAll((links) =>
            links.map((link) => link.getAttribute("title"))
          ),
          ["Board", "Broken"],
          "a package without a screen has no entry",
        );
        await page.goto(new URL(`${windowPath}/board`, installation.origin).href);
        assert.match(
          (await page.getByRole("link", { name: SCREEN.showIt }).getAttribute("href")) ?? "",
          /\/screen\/board$/,
          "an extension's page links to its screen",
        );
        await page.getByRole("navigation", { name: "Project" }).getByRole("link", { name: "Board" })
          .click();
        await page.waitForURL((url) => url.pathname.endsWith("/screen/board"));
        await expectText(page.getByRole("status").filter({ hasText: /sandbox/ }), SCREEN.active);
        assert.equal(
          await page.locator("iframe.screen-frame").getAttribute("sandbox"),
          "allow-scripts",
        );
        await watched.close();
      });

      await t.step("in a narrow window each glyph has its name, and screens differ", async () => {
        const watched = await openPage(browser, installation, {
          path: windowPath,
          viewport: { width: 400, height: 800 },
          expectedConsole: PROVOKED,
        });
        const { page } = watched;
        const navigator = page.getByRole("navigation", { name: "Project" });
        const screens = navigator.getByRole("list", { name: SCREEN.navigatorList });
        await expectText(screens, /Board/);
        const entries = await navigator.getByRole("link").evaluateAll((links) =>
          links.map((link) => ({
            title: link.getAttribute("title"),
            glyph: link.querySelector(".glyph")?.textContent ?? null,
            shown: (link.querySelector(".navigator-text")?.getBoundingClientRect().width ?? 0) > 1,
          }))
        );
        assert.deepEqual(entries, [
          { title: "All projects", glyph: "‹", shown: false },
          { title: "Extensions", glyph: "▦", shown: false },
          { title: "Devices", glyph: "◎", shown: false },
          { title: "Chat", glyph: "✎", shown: false },
          { title: "Records", glyph: "▤", shown: false },
          // Their initials meet, so each shows two letters.
          { title: "Board", glyph: "Bo", shown: false },
          { title: "Broken", glyph: "Br", shown: false },
        ]);
        // Each keeps its name for a screen reader, though only its glyph shows.
        for (const name of ["All projects", "Extensions", "Chat", "Records", "Board", "Broken"]) {
          await expectCount(navigator.getByRole("link", { name, exact: true }), 1);
        }
        await watched.assertAccessible("the narrow window's navigator");
        await watched.screenshot("navigator-narrow-light");
        await watched.close();
      });

      await t.step("the screen activates, calls its handler and leaves a receipt", async (t) => {
        const watched = await openPage(browser, installation, {
          path: `/p/${encodeURIComponent(project)}/screen/board`,
          expectedConsole: PROVOKED,
        });
        const { page } = watched;
        const frame = page.frameLocator("iframe.screen-frame");
        await expectText(frame.getByRole("heading", { level: 1 }), "Board");
        await frame.getByRole("button", { name: "Add an item" }).click();
        await expectText(frame.getByRole("status"), "Added From the screen");
        await expectText(frame.getByRole("list", { name: "Items" }), "From the screen");
        const [line] = (await installation.syncOk([
          "receipts",
          "--project",
          project,
          "--id",
          "board",
          "--limit",
          "1",
          "--json",
        ])).trim().split("\n");
        const receipt = JSON.parse(line);
        assert.equal(receipt.handler, "board.add");
        assert.equal(receipt.outcome, "ok");
        assert.deepEqual(receipt.occasion, { kind: "extension" });

        await t.step("every way out of the frame fails", async () => {
          const escapes = frame.locator("#escapes");
          await escapes.waitFor();
          const tried = JSON.parse((await escapes.textContent()) ?? "{}");
          assert.match(tried.fetch, /^refused: TypeError$/, `fetch: ${tried.fetch}`);
          assert.match(tried.cookie, /^refused: SecurityError$/, `cookie: ${tried.cookie}`);
          assert.match(tried.parent, /^refused: SecurityError$/, `parent: ${tried.parent}`);
          assert.match(tried.open, /^refused/, `window.open: ${tried.open}`);
          assert.match(
            tried.spawn,
            /^refused: NotFoundError$/,
            `spawn: ${tried.spawn}`,
          );
          // Whatever top.location said, the app's page stayed where it was.
          assert.match(page.url(), /\/screen\/board$/);
          assert.equal(await page.title(), "site — Sync");
        });

        await t.step("a malformed or unknown message is refused with a reason", async () => {
          const bridge = frame.locator("#bridge");
          await bridge.waitFor();
          const answers = JSON.parse((await bridge.textContent()) ?? "[]") as {
            id: number | null;
            ok: boolean;
            error?: { name: string; message: string };
          }[];
          const byId = (id: number | null) => answers.filter((a) => a.id === id);
          assert.equal(byId(null).length, 2, JSON.stringify(answers));
          for (const answer of answers) {
            assert.equal(answer.ok, false);
            assert.ok(answer.error && answer.error.message.length > 0);
          }
          assert.match(byId(null)[0].error!.message, /must be an object/);
          assert.match(byId(null)[1].error!.message, /needs "id"/);
          assert.equal(byId(9001)[0].error!.name, "BridgeError");
          assert.match(byId(9001)[0].error!.message, /unknown method "files\.read"/);
          assert.match(byId(9002)[0].error!.message, /"name" must be/);
          // A well-formed call of another package's handler reaches the host, which refuses it.
          assert.equal(byId(9003)[0].error!.name, "NotFoundError");
          assert.match(byId(9003)[0].error!.message, /board has no handler other\.ping/);
          // The app is still answering.
          await frame.getByRole("button", { name: "Add an item" }).click();
          await expectText(frame.getByRole("list", { name: "Items" }), /From the screen.*From/s);
        });

        await t.step("the window and the screen's own document are accessible", async () => {
          await watched.assertAccessible("a package's screen in the window");
          const inner = page.frames().find((f) => f.url().includes("/screens/board"));
          assert.ok(inner, "the screen's frame");
          await inner.evaluate(axe.source);
          const serious = await inner.evaluate(async () => {
            // deno-lint-ignore no-explicit-any
            const result = await (globalThis as any).axe.run((globalThis as any).document, {
              resultTypes: ["violations"],
            });
            return result.violations
              .filter((v: { impact: string }) => v.impact === "serious" || v.impact === "critical")
              .map((v: { id: string }) => v.id);
          });
          assert.deepEqual(serious, [], "axe found serious violations in the screen");
          await watched.screenshot("screen-board");
        });
        await watched.close();
      });

      await t.step("a screen whose activate throws says why, as text", async () => {
        const watched = await openPage(browser, installation, {
          path: `/p/${encodeURIComponent(project)}/screen/broken`,
        });
        const { page } = watched;
        const alert = page.getByRole("alert");
        await expectText(alert, "the board is missing");
        const words = (await alert.textContent()) ?? "";
        assert.doesNotMatch(words, /\w+Error:/, `it says why in words: ${words}`);
        const frame = page.frameLocator("iframe.screen-frame");
        await expectText(frame.getByRole("alert"), "This screen could not start");
        await watched.close();
      });

      await t.step("a removed package's screen leaves the navigator", async () => {
        const watched = await openPage(browser, installation, {
          path: `/p/${encodeURIComponent(project)}/screen/broken`,
        });
        const { page } = watched;
        const screens = page.getByRole("list", { name: SCREEN.navigatorList });
        await expectText(screens, /Broken/);
        await installation.syncOk(["remove", "broken", "--project", project]);
        await until(
          "the entry to go",
          async () => !/Broken/.test(await screens.textContent() ?? ""),
        );
        await expectText(page.getByRole("main"), /not installed in this project/);
        assert.equal(await page.locator("iframe.screen-frame").count(), 0);
        await expectText(page.getByRole("navigation", { name: "Project" }), WINDOW.allProjects);
        await watched.close();
      });
    } finally {
      await installation.close();
      await browser.close();
    }
  },
);
