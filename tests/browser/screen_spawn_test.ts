import assert from "node:assert/strict";
import {
  BROWSER_TEST,
  expectGone,
  expectText,
  Installation,
  launchBrowser,
  openPage,
  quietPackage,
  until,
  type WatchedPage,
} from "./_browser.ts";
import { INSTALL, SCREEN, WINDOW } from "./_names.ts";

/**
 * The pipes screen: a button per declared program, each program's pid and
 * output in a log of its own, a field whose text is written to `cat`, and a
 * program whose output callback throws at its first piece.
 */
const PIPES_SCREEN = `export function activate(ctx) {
  const section = (name) => {
    const heading = document.createElement("h2");
    heading.textContent = name;
    const start = document.createElement("button");
    start.className = "button";
    start.textContent = "Start " + name;
    const pid = document.createElement("p");
    pid.setAttribute("aria-label", name + " pid");
    const log = document.createElement("pre");
    log.setAttribute("role", "log");
    log.setAttribute("aria-label", name + " output");
    const end = document.createElement("p");
    end.setAttribute("aria-label", name + " exit");
    document.body.append(heading, start, pid, log, end);
    return { start, pid, log, end };
  };
  const show = (parts, process) => {
    parts.pid.textContent = String(process.pid);
    process.exited.then(({ code, signal }) => {
      parts.end.textContent = "exited " + code + " " + signal;
    });
  };
  const failed = (parts) => (error) => {
    parts.end.textContent = "failed: " + error.name + ": " + error.message;
  };

  const ticker = section("ticker");
  ticker.start.addEventListener("click", () => {
    ctx.host.spawn("ticker", {
      onStdout: (text) => ticker.log.append(text),
    }).then((process) => show(ticker, process), failed(ticker));
  });

  const echo = section("echo");
  const field = document.createElement("input");
  field.className = "input";
  field.setAttribute("aria-label", "Line to send");
  const send = document.createElement("button");
  send.className = "button";
  send.textContent = "Send";
  const close = document.createElement("button");
  close.className = "button";
  close.textContent = "Close input";
  document.body.append(field, send, close);
  let cat = null;
  echo.start.addEventListener("click", () => {
    ctx.host.spawn("echo", {
      onStdout: (text) => echo.log.append(text),
    }).then((process) => {
      cat = process;
      show(echo, process);
    }, failed(echo));
  });
  send.addEventListener("click", () => {
    cat.write(field.value + "\\n").catch(failed(echo));
  });
  close.addEventListener("click", () => {
    cat.end().catch(failed(echo));
  });

  const thrower = section("thrower");
  let pieces = 0;
  thrower.start.addEventListener("click", () => {
    ctx.host.spawn("thrower", {
      onStdout: (text) => {
        thrower.log.append(text);
        if (pieces++ === 0) throw new Error("the first piece is too much");
      },
    }).then((process) => show(thrower, process), failed(thrower));
  });

  const reload = document.createElement("button");
  reload.className = "button";
  reload.textContent = "Reload this screen";
  reload.addEventListener("click", () => location.reload());
  document.body.append(reload);
}
`;

/** A loop that says its pid, then a numbered line every 200 ms, until it is stopped. */
const TICKER = `echo "pid $$"; i=0; while true; do i=$((i+1)); echo "tick $i"; sleep 0.2; done`;
/** Two lines apart, then exit 3: the first piece of output is the one the screen throws at. */
const THROWER = `echo one; sleep 0.5; echo two; exit 3`;

/** The console error the screen runtime prints for the throwing callback. */
const THROWN = [/onStdout threw/, /the first piece is too much/];
/**
 * A screen that reloads its own document asks for it without the app's
 * cookie, which is refused; the app then asks for a fresh one.
 */
const SELF_RELOAD = [/Failed to load resource: the server responded with a status of 401/];

/** True while a process with `pid` exists (a zombie counts: it has not been reaped). */
async function alive(pid: number): Promise<boolean> {
  const { code } = await new Deno.Command("ps", { args: ["-p", String(pid)], stdout: "null" })
    .output();
  return code === 0;
}

/** True while any process of the group `pgid` exists. */
async function groupAlive(pgid: number): Promise<boolean> {
  const { code } = await new Deno.Command("pgrep", { args: ["-g", String(pgid)], stdout: "null" })
    .output();
  return code === 0;
}

/** Starts the ticker on the screen and answers its pid once it is printing. */
async function startTicker(watched: WatchedPage): Promise<number> {
  const frame = watched.page.frameLocator("iframe.screen-frame");
  await frame.getByRole("button", { name: "Start ticker" }).click();
  await expectText(frame.getByRole("log", { name: "ticker output" }), /tick 1\b/);
  const shown = Number(await frame.getByLabel("ticker pid").textContent());
  assert.ok(Number.isSafeInteger(shown) && shown > 1, `a pid, got ${shown}`);
  assert.ok(await alive(shown), `pid ${shown} runs`);
  return shown;
}

Deno.test("a screen's host.spawn starts its declared programs", BROWSER_TEST, async (t) => {
  const browser = await launchBrowser();
  const installation = await Installation.create();
  const started: number[] = [];
  try {
    const project = await installation.project("site");
    const folder = await installation.writePackage(quietPackage("pipes", {
      permissions: ["background", "host.processes"],
      ui: PIPES_SCREEN,
      manifest: {
        host: {
          processes: [
            { id: "ticker", program: "sh", args: ["-c", TICKER] },
            { id: "echo", program: "cat" },
            { id: "thrower", program: "sh", args: ["-c", THROWER] },
          ],
        },
      },
    }));
    await installation.serve();
    const screenPath = `/p/${encodeURIComponent(project)}/screen/pipes`;
    const open = async (expectedConsole: RegExp[] = THROWN) => {
      const watched = await openPage(browser, installation, { path: screenPath, expectedConsole });
      await expectText(
        watched.page.getByRole("status").filter({ hasText: /sandbox/ }),
        SCREEN.active,
      );
      return watched;
    };

    await t.step("the install card shows each program as full user access", async () => {
      const watched = await openPage(browser, installation, {
        path: `/p/${encodeURIComponent(project)}/extensions`,
      });
      const { page } = watched;
      await page.getByRole("button", { name: INSTALL.openButton }).click();
      const dialog = page.getByRole("dialog", { name: INSTALL.dialog });
      await dialog.getByLabel(INSTALL.pathField).fill(folder);
      await dialog.getByRole("button", { name: INSTALL.readButton }).click();
      const asks = dialog.getByRole("region", { name: INSTALL.asksHeading });
      await expectText(asks, /full user access: may run cat as you/);
      await expectText(asks, /full user access: may run sh -c .*tick/);
      await dialog.getByRole("button", { name: INSTALL.approve, exact: true }).click();
      await expectGone(dialog);
      await page.waitForURL((url) => url.pathname.endsWith("/extensions/pipes"));
      await watched.close();
    });

    await t.step("the screen starts a program and its output streams in, live", async () => {
      const watched = await open();
      const frame = watched.page.frameLocator("iframe.screen-frame");
      const pid = await startTicker(watched);
      started.push(pid);
      const log = frame.getByRole("log", { name: "ticker output" });
      assert.match(await log.textContent() ?? "", new RegExp(`pid ${pid}\\n`));
      // Later lines arrive while it runs: the output is streamed, not kept for the end.
      await expectText(log, /tick 4\b/);
      assert.ok(await alive(pid), "it still runs");
      assert.equal(await frame.getByLabel("ticker exit").textContent(), "");
      await watched.close();
      // Closing the page closes its screen, and what it started.
      await until(
        `pid ${pid} and its group to go once the page closed`,
        async () => !(await groupAlive(pid)),
      );
    });

    await t.step("what is written to stdin comes back, until the input is closed", async () => {
      const watched = await open();
      const frame = watched.page.frameLocator("iframe.screen-frame");
      await frame.getByRole("button", { name: "Start echo" }).click();
      const pidText = frame.getByLabel("echo pid");
      await expectText(pidText, /^\d+$/);
      const pid = Number(await pidText.textContent());
      started.push(pid);
      const log = frame.getByRole("log", { name: "echo output" });
      await frame.getByLabel("Line to send").fill("héllo, wörld ✓");
      await frame.getByRole("button", { name: "Send" }).click();
      await expectText(log, "héllo, wörld ✓\n");
      await frame.getByLabel("Line to send").fill("second line");
      await frame.getByRole("button", { name: "Send" }).click();
      await expectText(log, "héllo, wörld ✓\nsecond line\n");
      assert.ok(await alive(pid), "cat waits for more while its input is open");
      await frame.getByRole("button", { name: "Close input" }).click();
      await expectText(frame.getByLabel("echo exit"), "exited 0 null");
      assert.equal(await alive(pid), false);
      await watched.close();
    });

    await t.step("a throwing onStdout still lets later output and exited arrive", async () => {
      const watched = await open();
      const frame = watched.page.frameLocator("iframe.screen-frame");
      await frame.getByRole("button", { name: "Start thrower" }).click();
      await expectText(frame.getByLabel("thrower exit"), "exited 3 null");
      assert.equal(
        await frame.getByRole("log", { name: "thrower output" }).textContent(),
        "one\ntwo\n",
      );
      await watched.close();
    });

    await t.step("reloading the screen stops what it started", async (t) => {
      const watched = await open(SELF_RELOAD);
      const { page } = watched;
      const frame = page.frameLocator("iframe.screen-frame");

      await t.step("when the screen reloads its own document", async () => {
        const pid = await startTicker(watched);
        started.push(pid);
        await frame.getByRole("button", { name: "Reload this screen" }).click();
        await until(`pid ${pid} and its group to go`, async () => !(await groupAlive(pid)));
        assert.equal(await alive(pid), false);
        // The app asked for a fresh document, which activates with a channel of its own.
        await until(
          "the fresh document",
          async () =>
            /[?&]load=/.test(await page.locator("iframe.screen-frame").getAttribute("src") ?? ""),
        );
        await expectText(page.getByRole("status").filter({ hasText: /sandbox/ }), SCREEN.active);
      });

      await t.step("when the app's page reloads", async () => {
        const pid = await startTicker(watched);
        started.push(pid);
        await page.reload();
        await until(`pid ${pid} and its group to go`, async () => !(await groupAlive(pid)));
        assert.equal(await alive(pid), false);
      });
      await watched.close();
    });

    await t.step("leaving the screen stops what it started", async () => {
      const watched = await open();
      const pid = await startTicker(watched);
      started.push(pid);
      await watched.page.getByRole("navigation", { name: "Project" })
        .getByRole("link", { name: WINDOW.extensionsArea }).click();
      await until(
        `pid ${pid} and its group to go once the screen was left`,
        async () => !(await groupAlive(pid)),
      );
      assert.equal(await alive(pid), false);
      await watched.close();
    });

    await t.step("removing the package stops its programs", async () => {
      const watched = await open();
      const pid = await startTicker(watched);
      started.push(pid);
      const removed = await installation.sync(["remove", "pipes", "--project", project]);
      assert.equal(removed.code, 0, removed.stderr);
      await until(
        `pid ${pid} and its group to go once pipes was removed`,
        async () => !(await groupAlive(pid)),
      );
      assert.equal(await alive(pid), false);
      await expectText(watched.page.getByRole("main"), /not installed in this project/);
      await watched.close();
    });
  } finally {
    await installation.close();
    await browser.close();
    for (const pid of started) {
      try {
        Deno.kill(-pid, "SIGKILL");
      } catch { /* gone, as it should be */ }
    }
  }
});

Deno.test("extensions/tail's screen follows a file as it grows", BROWSER_TEST, async () => {
  const browser = await launchBrowser();
  const installation = await Installation.create();
  try {
    const project = await installation.project("site");
    await Deno.mkdir(`${project}/log`);
    const log = `${project}/log/development.log`;
    await Deno.writeTextFile(log, "first line\n");
    await installation.install(new URL("../../extensions/tail", import.meta.url).pathname, project);
    await installation.serve();
    const watched = await openPage(browser, installation, {
      path: `/p/${encodeURIComponent(project)}/screen/tail`,
    });
    const frame = watched.page.frameLocator("iframe.screen-frame");
    await frame.getByLabel("File to follow").fill("log/development.log");
    await frame.getByRole("button", { name: "Follow" }).click();
    const status = frame.getByRole("status");
    await expectText(status, /Following log\/development\.log \(pid \d+\)/);
    const pid = Number(/pid (\d+)/.exec(await status.textContent() ?? "")![1]);
    const lines = frame.getByRole("log", { name: "The file's lines" });
    await expectText(lines, "first line\n");
    await Deno.writeTextFile(log, "a line written later\n", { append: true });
    await expectText(lines, "first line\na line written later\n");
    await watched.screenshot("screen-tail");
    await frame.getByRole("button", { name: "Stop" }).click();
    await expectText(status, "Stopped following log/development.log.");
    assert.equal(await alive(pid), false);
    await watched.close();
  } finally {
    await installation.close();
    await browser.close();
  }
});
