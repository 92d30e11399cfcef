/**
 * The browser tests' harness: a real Chromium (playwright-core driving
 * `@sparticuz/chromium`), a real `sync serve` child process over a temp
 * installation, and pages that fail their test on any console error, page
 * error or Content-Security-Policy violation.
 *
 * The browser tests run with `deno test -A`: playwright reads `/proc` paths
 * that Deno grants only with every permission.
 *
 * @module
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import chromium from "@sparticuz/chromium";
import axe from "axe-core";
import {
  type Browser,
  type BrowserContext,
  chromium as playwright,
  type Locator,
  type Page,
} from "playwright-core";
import { type CliResult, runSync } from "../internal/cli.ts";
import { type PackageSpec, writePackage } from "../internal/packages.ts";
import { ServeProcess } from "../internal/serve_process.ts";

export type { Browser, Locator, Page };

/** How long a test waits for the page to show something: generous, for a loaded 2-core machine. */
export const WAIT_MS = 20_000;

/**
 * How long a test waits for an install card: the card shows once the package
 * is checked, and the check type-checks it in a child `deno`, which a loaded
 * 2-core machine can make take longer than anything a page draws.
 */
export const CHECK_WAIT_MS = 60_000;

/** Where pages' screenshots go: `SYNC_SCREENSHOTS`, or a folder in the system's temp dir. */
export const SCREENSHOT_DIR = Deno.env.get("SYNC_SCREENSHOTS") ??
  join(Deno.env.get("TMPDIR") ?? "/tmp", "sync-browser-screenshots");

/** Options a browser test file's `Deno.test` needs: playwright keeps timers and pipes of its own. */
export const BROWSER_TEST = { sanitizeOps: false, sanitizeResources: false } as const;

/**
 * Flags of `@sparticuz/chromium` that switch off the web's own security:
 * with them the browser sends no Origin and ignores the same-origin policy,
 * so the app would be tested in a browser no person uses.
 */
const UNSAFE_FLAGS = ["--disable-web-security", "--allow-running-insecure-content"];
/**
 * `--single-process` suits a short-lived cloud function; here, where one
 * browser opens and closes many contexts, it loses the browser with them.
 */
const UNSUITED_FLAGS = ["--single-process"];

/**
 * Starts the headless Chromium of `@sparticuz/chromium`; one per test file.
 * Its temporary files (the singleton lock and socket Chromium keeps in
 * `TMPDIR`, which a browser killed under load leaves behind) go in a folder
 * of its own, removed when the browser is closed.
 */
export async function launchBrowser(): Promise<Browser> {
  const tmp = await Deno.makeTempDir({ prefix: "sync-chromium-" });
  let browser: Browser;
  try {
    browser = await playwright.launch({
      executablePath: await chromium.executablePath(),
      args: chromium.args.filter((flag) => ![...UNSAFE_FLAGS, ...UNSUITED_FLAGS].includes(flag)),
      headless: true,
      env: { ...Deno.env.toObject(), TMPDIR: tmp },
    });
  } catch (error) {
    await Deno.remove(tmp, { recursive: true }).catch(() => {});
    throw error;
  }
  const close = browser.close.bind(browser);
  browser.close = async (...args: Parameters<Browser["close"]>) => {
    try {
      await close(...args);
    } finally {
      await Deno.remove(tmp, { recursive: true }).catch(() => {});
    }
  };
  return browser;
}

/** The folder of Deno's cache this test runs with. */
async function denoDir(): Promise<string> {
  const { stdout } = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json"],
    stdout: "piped",
    stderr: "null",
  }).output();
  return (JSON.parse(new TextDecoder().decode(stdout)) as { denoDir: string }).denoDir;
}

/** A temp installation (`SYNC_HOME`), its projects and packages, and its `sync serve`. */
export class Installation {
  /** The temp folder everything of this installation lives in. */
  readonly root: string;
  /** `SYNC_HOME`. */
  readonly home: string;
  #serve: ServeProcess | null = null;
  #url: URL | null = null;
  /**
   * The person's home folder serve is given (`HOME`), set before `serve()`;
   * null leaves the test's own.
   */
  personHome: string | null = null;

  private constructor(root: string) {
    this.root = root;
    this.home = join(root, "home");
  }

  /** Makes a fresh, empty installation in a temp folder. */
  static async create(): Promise<Installation> {
    return new Installation(await Deno.makeTempDir({ prefix: "sync-browser-" }));
  }

  /** Makes a project folder named `name` and answers its real path. */
  async project(name: string): Promise<string> {
    const path = join(this.root, "projects", name);
    await Deno.mkdir(path, { recursive: true });
    return await Deno.realPath(path);
  }

  /** Writes a package folder (see `tests/internal/packages.ts`) and answers its path. */
  async writePackage(spec: PackageSpec): Promise<string> {
    return await writePackage(join(this.root, "packages"), spec);
  }

  /** Runs the CLI, as a person would in another terminal, over this installation. */
  async sync(args: string[]): Promise<CliResult> {
    return await runSync(this.home, args);
  }

  /** Runs the CLI and fails unless it exits 0; answers its stdout. */
  async syncOk(args: string[]): Promise<string> {
    const result = await this.sync(args);
    assert.equal(
      result.code,
      0,
      `sync ${args.join(" ")} exited ${result.code}:\n${result.stderr}${result.stdout}`,
    );
    return result.stdout;
  }

  /** Calls `handler` of package `id` in `project` from the CLI, as another process. */
  async call(project: string, id: string, handler: string, payload?: unknown): Promise<CliResult> {
    const args = ["call", id, handler, "--project", project];
    if (payload !== undefined) args.push("--payload", JSON.stringify(payload));
    return await this.sync(args);
  }

  /** Installs the package folder `folder` into `project` from the CLI, approved. */
  async install(folder: string, project: string): Promise<void> {
    await this.syncOk(["install", folder, "--project", project, "--approve"]);
  }

  /** Starts `sync serve` (once) and answers the URL it printed, with the token. */
  async serve(): Promise<URL> {
    if (!this.#url) {
      // Another home keeps Deno's own cache where it is, rather than filling the new one.
      const env: Record<string, string> = this.personHome === null
        ? {}
        : { HOME: this.personHome, DENO_DIR: await denoDir() };
      this.#serve = new ServeProcess(this.home, undefined, env);
      this.#url = new URL(await this.#serve.url());
    }
    return this.#url;
  }

  /**
   * Stops the serve as a person's Ctrl-C would (SIGINT) and starts it again
   * over the same installation; answers the new URL.
   */
  async restart(): Promise<URL> {
    await this.#serve?.stop("SIGINT");
    this.#serve = null;
    this.#url = null;
    return await this.serve();
  }

  /**
   * Stops the serve as a person's Ctrl-C would (SIGINT), leaving open pages
   * as they are: they see Sync stop.
   */
  async stopServe(): Promise<void> {
    assert.ok(this.#serve, "serve() first");
    await this.#serve.stop("SIGINT");
    this.#serve = null;
  }

  /**
   * Starts the serve again after {@linkcode stopServe}, on the port it had,
   * so that open pages find it again; answers its URL.
   */
  async serveAgain(): Promise<URL> {
    assert.ok(this.#url && !this.#serve, "stopServe() first");
    this.#serve = new ServeProcess(this.home, ["--port", this.#url.port]);
    this.#url = new URL(await this.#serve.url());
    return this.#url;
  }

  /** The served origin, such as `http://127.0.0.1:41234`. */
  get origin(): string {
    assert.ok(this.#url, "serve() first");
    return this.#url.origin;
  }

  /** The installation's token, from the printed URL. */
  get token(): string {
    assert.ok(this.#url, "serve() first");
    return this.#url.searchParams.get("token")!;
  }

  /** The serve's output so far. */
  get serveLines(): readonly string[] {
    return this.#serve?.lines ?? [];
  }

  /** Stops the serve and removes the temp folder. */
  async close(): Promise<void> {
    await this.#serve?.stop("SIGTERM");
    await Deno.remove(this.root, { recursive: true }).catch(() => {});
  }
}

/** Options for {@linkcode openPage}. */
export interface OpenPageOptions {
  /** The app's address to open, such as `/` or `projectPath(…)`; `/` by default. */
  path?: string;
  /** The colour scheme the page is told the system prefers; light by default. */
  colorScheme?: "light" | "dark";
  /** Tells the page the person prefers reduced motion. */
  reducedMotion?: boolean;
  /** The window's size; 1280×800 by default. */
  viewport?: { width: number; height: number };
  /** Console errors this page is expected to print (a refusal the test provokes). */
  expectedConsole?: RegExp[];
}

/**
 * A page of the app in its own browser context, watched: every console
 * error, uncaught page error and CSP violation is kept, and
 * {@linkcode WatchedPage.close} fails the test when there was any.
 */
export class WatchedPage {
  /** The page. */
  readonly page: Page;
  /** Its browser context (its own cookies). */
  readonly context: BrowserContext;
  /** What went wrong on the page, in order. */
  readonly problems: string[] = [];
  /** Native dialogs (`alert`, `confirm`) the page opened; the app never opens one. */
  readonly nativeDialogs: string[] = [];
  #expected: RegExp[];

  constructor(context: BrowserContext, page: Page, expected: RegExp[]) {
    this.context = context;
    this.page = page;
    this.#expected = expected;
    page.on("console", (message) => {
      if (message.type() !== "error") return;
      const text = message.text();
      if (this.#expected.some((pattern) => pattern.test(text))) return;
      this.problems.push(`console error: ${text}`);
    });
    page.on("pageerror", (error) => this.problems.push(`page error: ${error.message}`));
    page.on("dialog", (dialog) => {
      this.nativeDialogs.push(`${dialog.type()}: ${dialog.message()}`);
      void dialog.dismiss().catch(() => {});
    });
  }

  /** Fails when the page printed an error, threw, or broke its CSP. */
  assertClean(): void {
    assert.deepEqual(this.problems, [], "the page had errors");
  }

  /** Saves a full-window PNG named `name` into {@linkcode SCREENSHOT_DIR}; answers its path. */
  async screenshot(name: string): Promise<string> {
    await Deno.mkdir(SCREENSHOT_DIR, { recursive: true });
    const path = join(SCREENSHOT_DIR, `${name}.png`);
    await this.page.screenshot({ path });
    return path;
  }

  /**
   * Runs axe-core on the page as it is now and fails on any serious or
   * critical violation. axe is evaluated through the devtools protocol, which
   * the page's CSP does not govern (a `<script>` tag with its source would be
   * refused); the page itself is not changed to let it in. Animations
   * running (a receipt fading in) are let finish first: mid-fade, text is
   * paler than it will be, and contrast is judged as a person reads it.
   */
  async assertAccessible(label: string): Promise<void> {
    await this.page.evaluate(() => {
      interface Running {
        finished: Promise<unknown>;
        effect: { getTiming(): { iterations?: number } } | null;
      }
      const document = (globalThis as unknown as { document: { getAnimations(): Running[] } })
        .document;
      // A spinner turns for ever; only what ends is waited for.
      const ending = document.getAnimations().filter((animation) =>
        Number.isFinite(animation.effect?.getTiming().iterations ?? 1)
      );
      return Promise.all(ending.map((animation) => animation.finished.catch(() => {})));
    });
    const loaded = await this.page.evaluate("typeof window.axe === 'object'");
    if (!loaded) await this.page.evaluate(axe.source);
    const violations = await this.page.evaluate(async () => {
      // deno-lint-ignore no-explicit-any
      const run = (globalThis as any).axe.run as (
        context: unknown,
        options: unknown,
      ) => Promise<
        {
          violations: {
            id: string;
            impact: string | null;
            help: string;
            nodes: { target: unknown[]; failureSummary?: string }[];
          }[];
        }
      >;
      const result = await run((globalThis as { document?: unknown }).document, {
        resultTypes: ["violations"],
      });
      return result.violations.map((v) => ({
        id: v.id,
        impact: v.impact,
        help: v.help,
        nodes: v.nodes.map((n) => `${JSON.stringify(n.target)}: ${n.failureSummary ?? ""}`),
      }));
    });
    const serious = violations.filter((v) => v.impact === "serious" || v.impact === "critical");
    assert.deepEqual(serious, [], `axe found serious violations on ${label}`);
  }

  /** Fails on problems, then closes the page's context. */
  async close(): Promise<void> {
    try {
      this.assertClean();
    } finally {
      await this.context.close();
    }
  }
}

/**
 * Opens the app in a fresh browser context: the printed address's token
 * sets the cookie and the page sends itself on to the address without it.
 *
 * @param browser The test file's browser.
 * @param installation A served installation.
 * @param options Which address, colour scheme, motion and window size.
 */
export async function openPage(
  browser: Browser,
  installation: Installation,
  options: OpenPageOptions = {},
): Promise<WatchedPage> {
  const context = await browser.newContext({
    colorScheme: options.colorScheme ?? "light",
    reducedMotion: options.reducedMotion ? "reduce" : "no-preference",
    viewport: options.viewport ?? { width: 1280, height: 800 },
    timezoneId: "UTC",
    locale: "en-US",
  });
  context.setDefaultTimeout(WAIT_MS);
  // Through the devtools protocol, so the page's CSP does not stop it; it only listens.
  await context.addInitScript(`document.addEventListener("securitypolicyviolation", (event) => {
    console.error("CSP violation: " + event.violatedDirective + " blocked " + (event.blockedURI || "inline"));
  });`);
  const page = await context.newPage();
  const watched = new WatchedPage(context, page, options.expectedConsole ?? []);
  const path = options.path ?? "/";
  const url = new URL(path, installation.origin);
  url.searchParams.set("token", installation.token);
  await page.goto(url.href);
  await page.waitForURL((current) => !current.searchParams.has("token"));
  return watched;
}

/**
 * Waits until `check` answers true, asking again every 100 ms; fails after
 * `ms` with `what`. For facts the page cannot be asked about with a locator.
 */
export async function until(
  what: string,
  check: () => boolean | Promise<boolean>,
  ms = WAIT_MS,
): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`waited ${ms} ms for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Waits until `locator` shows and holds text matching `text`. */
export async function expectText(locator: Locator, text: RegExp | string): Promise<void> {
  await locator.first().waitFor({ state: "visible" });
  const pattern = typeof text === "string" ? new RegExp(escapeRegExp(text)) : text;
  let last = "";
  await until(`text ${pattern} in ${locator}`, async () => {
    last = (await locator.first().textContent()) ?? "";
    return pattern.test(last);
  }).catch((error) => {
    throw new Error(`${error.message}; it says ${JSON.stringify(last)}`);
  });
}

/** Waits until `locator` matches no element, or only hidden ones. */
export async function expectGone(locator: Locator): Promise<void> {
  await locator.first().waitFor({ state: "hidden" });
}

/** Waits until `locator` matches exactly `count` elements. */
export async function expectCount(locator: Locator, count: number): Promise<void> {
  let last = -1;
  await until(`${count} of ${locator}`, async () => (last = await locator.count()) === count)
    .catch((error) => {
      throw new Error(`${error.message}; there are ${last}`);
    });
}

/** True when `locator`'s element has the keyboard focus. */
export async function hasFocus(locator: Locator): Promise<boolean> {
  return await locator.evaluate((element) => element === element.ownerDocument.activeElement);
}

/** The text of what has the keyboard focus. */
export async function focusedText(page: Page): Promise<string> {
  return await page.evaluate("document.activeElement?.textContent ?? ''") as string;
}

/** Presses Tab until `locator` has the focus, at most `most` times; fails if it never does. */
export async function tabTo(page: Page, locator: Locator, most = 30): Promise<void> {
  for (let i = 0; i < most; i++) {
    if (await hasFocus(locator)) return;
    await page.keyboard.press("Tab");
  }
  assert.ok(await hasFocus(locator), `Tab never reached ${locator}`);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** A package whose one handler returns at once: for lists, receipts and removal. */
export function quietPackage(id: string, more: Partial<PackageSpec> = {}): PackageSpec {
  return {
    id,
    handlers: [`${id}.run`],
    service:
      `export default function register() {\n  return { "${id}.run": (payload) => ({ ok: true, payload }) };\n}\n`,
    ...more,
  };
}

/**
 * A package whose `<id>.wait` runs until `<id>.open` has been called with
 * the same `{ "gate": name }` payload (or about 4.5 s have passed, under the
 * 5 s limit), checking every 100 ms: a handler that runs exactly as long as
 * the test wants to look at it.
 */
export function gatePackage(id: string, more: Partial<PackageSpec> = {}): PackageSpec {
  return {
    id,
    handlers: [`${id}.wait`, `${id}.open`],
    service: `import { memory } from "@sync/extension-api/service";
export default function register() {
  return {
    "${id}.wait": async (payload) => {
      const until = Date.now() + 4500;
      while (Date.now() < until) {
        if (await memory.record("${id}.gate/" + payload.gate)) return { opened: true };
        const pause = Date.now() + 100;
        while (Date.now() < pause) { /* a handler has no timers: it spins */ }
      }
      return { opened: false };
    },
    "${id}.open": async (payload) => {
      await memory.write({ key: "${id}.gate/" + payload.gate, title: "open" });
      return { opened: true };
    },
  };
}
`,
    ...more,
  };
}
