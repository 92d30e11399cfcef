import assert from "node:assert/strict";
import { join } from "node:path";
import { type CheckProblem, formatProblem } from "../../runtime/author/mod.ts";
import {
  BROWSER_TEST,
  expectGone,
  expectText,
  hasFocus,
  Installation,
  launchBrowser,
  type Locator,
  openPage,
  type Page,
  quietPackage,
} from "./_browser.ts";
import { INSTALL } from "./_names.ts";

const CLEAN = new URL("../fixtures/clean/", import.meta.url);

/** Opens the install dialog and reads the card of `folder`; answers the dialog. */
async function readCard(page: Page, folder: string): Promise<Locator> {
  await page.getByRole("button", { name: INSTALL.openButton }).click();
  const dialog = page.getByRole("dialog", { name: INSTALL.dialog });
  await dialog.getByLabel(INSTALL.pathField).fill(folder);
  await dialog.getByRole("button", { name: INSTALL.readButton }).click();
  return dialog;
}

/** A copy of the clean fixture (a package with sources) under `root`. */
async function cleanCopy(root: string, name: string): Promise<string> {
  const to = join(root, name);
  const copy = async (source: URL, target: string) => {
    await Deno.mkdir(target, { recursive: true });
    for await (const entry of Deno.readDir(source)) {
      const inner = join(target, entry.name);
      if (entry.isDirectory) await copy(new URL(`${entry.name}/`, source), inner);
      else await Deno.copyFile(new URL(entry.name, source), inner);
    }
  };
  await copy(CLEAN, to);
  return to;
}

Deno.test(
  "the install card: what it replaces, what reaches far, and check's own problems",
  BROWSER_TEST,
  async (t) => {
    const browser = await launchBrowser();
    const installation = await Installation.create();
    try {
      const project = await installation.project("site");
      await installation.serve();
      const path = `/p/${encodeURIComponent(project)}/extensions`;
      const listed = () => installation.syncOk(["list", "--project", project]);

      await t.step(
        "another package of an installed id: the card says what it replaces and waits for a tick",
        async () => {
          const first = await installation.writePackage(
            quietPackage("hello", { version: "1.0.0" }),
          );
          await installation.install(first, project);
          const other = await installation.writePackage(
            quietPackage("hello", { version: "0.1.0" }),
          );
          const watched = await openPage(browser, installation, { path });
          const { page } = watched;
          const dialog = await readCard(page, other);
          const replaces = dialog.getByRole("region", { name: /^This replaces/ });
          await expectText(replaces, `This replaces hello 1.0.0 from ${first}`);
          await expectText(replaces, /the new one is older and comes from another folder/);
          const agree = dialog.getByRole("checkbox", {
            name: "Replace hello 1.0.0 with this package",
          });
          // This project approved all it asks already: the action is Install.
          const approve = dialog.getByRole("button", { name: "Install", exact: true });
          assert.ok(await hasFocus(agree), "the agreement has the focus, not Install");
          assert.equal(await approve.getAttribute("aria-disabled"), "true");
          await watched.assertAccessible("the card of a replacement (light)");
          await watched.screenshot("install-card-replaces-light");
          // Enter on the agreement, or a click on Approve before it is ticked, installs nothing.
          await page.keyboard.press("Enter");
          await approve.click({ force: true });
          assert.match(await listed(), /^hello@1\.0\.0 /m);
          await agree.press("Space");
          assert.equal(await agree.isChecked(), true);
          assert.equal(await approve.getAttribute("aria-disabled"), null);
          await approve.click();
          await expectGone(dialog);
          assert.match(await listed(), /^hello@0\.1\.0 /m);
          await watched.close();
        },
      );

      await t.step(
        "a program with full user access is set apart, and Enter cancels rather than approves",
        async () => {
          const folder = await installation.writePackage(quietPackage("runner", {
            permissions: ["background", "host.processes", "net:api.example.com"],
            manifest: {
              host: { processes: [{ id: "tail", program: "tail", args: ["-F", "log"] }] },
            },
          }));
          for (const colorScheme of ["light", "dark"] as const) {
            const watched = await openPage(browser, installation, { path, colorScheme });
            const { page } = watched;
            const dialog = await readCard(page, folder);
            const wide = dialog.getByRole("group", { name: "Beyond what Sync guards" });
            await expectText(wide, /host\.processes/);
            await expectText(wide, /process:tail tail -F log/);
            await expectText(wide, /full user access/);
            assert.equal(await wide.getByText("net:api.example.com").count(), 0);
            const asks = dialog.getByRole("region", { name: INSTALL.asksHeading });
            await expectText(asks, /net:api\.example\.com/);
            const cancel = dialog.getByRole("button", { name: INSTALL.cancel, exact: true });
            assert.ok(await hasFocus(cancel), "Cancel has the focus, not Approve");
            await watched.assertAccessible(`the card of a wide permission (${colorScheme})`);
            await watched.screenshot(`install-card-wide-${colorScheme}`);
            await page.keyboard.press("Enter");
            await expectGone(dialog);
            assert.doesNotMatch(await listed(), /\brunner\b/);
            await watched.close();
          }
          // Approving it is still one deliberate click away.
          const watched = await openPage(browser, installation, { path });
          const dialog = await readCard(watched.page, folder);
          await dialog.getByRole("button", { name: INSTALL.approve, exact: true }).click();
          await expectGone(dialog);
          assert.match(await listed(), /\brunner\b/);
          await watched.close();
        },
      );

      await t.step(
        "a folder with sources: the card shows what `deno task check` shows; Check again builds",
        async () => {
          const folder = await cleanCopy(installation.root, "tidy");
          const sourceFile = join(folder, "src", "service.ts");
          const source = await Deno.readTextFile(sourceFile);
          await Deno.writeTextFile(
            sourceFile,
            source.replace(
              `"tidy.seed": async () => {`,
              `"tidy.seed": async () => {\n      setTimeout(() => {}, 1);\n      const n: number = "one";\n      console.log(String(n));`,
            ),
          );
          const manifestFile = join(folder, "manifest.json");
          const manifest = JSON.parse(await Deno.readTextFile(manifestFile));
          manifest.schedule[0].handler = "tidy.later";
          await Deno.writeTextFile(manifestFile, JSON.stringify(manifest, null, 2));
          // A built file from an older source, which check builds again.
          const built = join(folder, "service", "index.js");
          const stale = `export default function register() { return {}; }\n`;
          await Deno.mkdir(join(folder, "service"));
          await Deno.writeTextFile(built, stale);

          const watched = await openPage(browser, installation, { path });
          const { page } = watched;
          const dialog = await readCard(page, folder);
          const problems = dialog.locator(".install-card-problems");
          await problems.waitFor();
          const shown = (await problems.textContent())!;

          await Deno.writeTextFile(built, stale);
          const check = JSON.parse(
            (await installation.sync(["check", folder, "--json"])).stdout || "{}",
          );
          const printed = (check.problems as CheckProblem[]).map(formatProblem).join("\n\n");
          assert.ok(check.problems.length >= 3, printed);
          assert.equal(shown, printed, "the card shows check's problems, in check's order");
          await expectText(
            dialog.getByRole("heading", { name: /^Check found/ }),
            `Check found ${check.problems.length} problems`,
          );
          await watched.assertAccessible("the card of a folder check refuses");
          await watched.screenshot("install-card-check-light");

          // Fixed in the source alone: Check again builds it, and the card is clean.
          await Deno.writeTextFile(sourceFile, source);
          manifest.schedule[0].handler = "tidy.poll";
          await Deno.writeTextFile(manifestFile, JSON.stringify(manifest, null, 2));
          await Deno.writeTextFile(built, stale);
          await dialog.getByRole("button", { name: "Check again" }).click();
          await expectGone(problems);
          await dialog.getByRole("button", { name: INSTALL.approve, exact: true }).waitFor();
          assert.notEqual(await Deno.readTextFile(built), stale, "Check again built it");
          await dialog.getByRole("button", { name: INSTALL.cancel, exact: true }).click();
          await expectGone(dialog);
          await watched.close();
        },
      );
    } finally {
      await installation.close();
      await browser.close();
    }
  },
);
