import assert from "node:assert/strict";
import {
  BROWSER_TEST,
  expectGone,
  expectText,
  hasFocus,
  Installation,
  launchBrowser,
  openPage,
  tabTo,
  until,
} from "./_browser.ts";
import { EXTENSION, WINDOW } from "./_names.ts";

/** Version `version` of a package that answers which version it is. */
function versioned(id: string, version: string, permissions: string[]) {
  return {
    id,
    version,
    permissions,
    handlers: [`${id}.which`],
    service: `export default function register() {
  return { "${id}.which": () => ({ version: "${version}" }) };
}`,
  };
}

Deno.test("an update that asks for more waits for approval", BROWSER_TEST, async (t) => {
  const browser = await launchBrowser();
  const installation = await Installation.create();
  try {
    const project = await installation.project("site");
    await installation.serve();
    const which = async (id: string) => {
      const answer = await installation.call(project, id, `${id}.which`);
      assert.equal(answer.code, 0, answer.stderr);
      return (JSON.parse(answer.stdout) as { version: string }).version;
    };
    /** Installs v1 approved, then v2 from the CLI without --approve, which leaves it waiting. */
    const waitingUpdate = async (id: string, asks = ["net:tracker.example.com"]) => {
      await installation.install(
        await installation.writePackage(versioned(id, "1.0.0", ["background"])),
        project,
      );
      const v2 = await installation.writePackage(
        versioned(id, "2.0.0", ["background", ...asks]),
      );
      const stored = await installation.sync(["install", v2, "--project", project, "--replace"]);
      assert.match(stored.stdout + stored.stderr, /2\.0\.0/, stored.stderr);
      assert.equal(await which(id), "1.0.0", "the old version still serves");
    };

    for (const way of ["mouse", "keyboard"] as const) {
      await t.step(
        `with the ${way}: the page shows only what is new, and Approve serves it`,
        async () => {
          const id = way === "mouse" ? "tracker" : "poller";
          await waitingUpdate(id);
          const path = `/p/${encodeURIComponent(project)}/extensions/${id}`;
          const watched = await openPage(browser, installation, {
            path,
            colorScheme: way === "mouse" ? "light" : "dark",
          });
          const { page } = watched;
          const notice = page.getByRole("region", {
            name: /Version 2\.0\.0 waits for your approval/,
          });
          await expectText(notice, /net:tracker\.example\.com/);
          await expectText(notice, /Version 1\.0\.0 keeps serving this project until you approve/);
          // The row's notice points at the page's Approve, not at a command line.
          const rowNotice = page.getByRole("list", { name: WINDOW.extensionList })
            .getByRole("listitem").filter({ hasText: /waits for your approval/ });
          await expectText(rowNotice, /Approve it on its page\./);
          assert.doesNotMatch(await rowNotice.innerText(), /sync install|--approve/);
          const asked = await notice.getByRole("listitem").allTextContents();
          assert.equal(asked.length, 1, `only the new permission: ${JSON.stringify(asked)}`);
          assert.doesNotMatch(asked[0], /background/);
          await watched.assertAccessible(`an update waiting (${way})`);
          if (way === "mouse") await watched.screenshot("update-waiting-light");
          assert.equal(await which(id), "1.0.0", "still the old version while the page shows it");
          const approve = notice.getByRole("button", { name: EXTENSION.approveUpdate });
          if (way === "mouse") {
            await approve.click();
          } else {
            await tabTo(page, approve, 80);
            assert.ok(await hasFocus(approve));
            await page.keyboard.press("Enter");
          }
          await expectGone(notice);
          // Said in the window's words, not the lines `sync install` prints.
          const said = page.getByRole("status").filter({ hasText: "serves this project now" });
          await expectText(
            said,
            new RegExp(`^${id} 2\\.0\\.0 serves this project now — approved: net:tracker`),
          );
          assert.doesNotMatch(await said.innerText(), /Installed|@|sync /);
          // Approve went with the notice; what approving did has the focus it had.
          await until("what approving did has the focus", () => hasFocus(said));
          await until("v2 serving", async () => (await which(id)) === "2.0.0");
          await watched.close();
        },
      );
    }

    await t.step(
      "a wide permission stands apart as on the install card, and Approve is not the default",
      async () => {
        const id = "prober";
        await waitingUpdate(id, ["net:localhost", "net:tracker.example.com"]);
        for (const colorScheme of ["light", "dark"] as const) {
          const watched = await openPage(browser, installation, {
            path: `/p/${encodeURIComponent(project)}/extensions/${id}`,
            colorScheme,
          });
          const { page } = watched;
          const notice = page.getByRole("region", {
            name: /Version 2\.0\.0 waits for your approval/,
          });
          const wide = notice.getByRole("group", { name: "Beyond what Sync guards" });
          await expectText(wide, /net:localhost/);
          await expectText(wide, /a server on this machine or your network trusts whoever asks/);
          await expectText(wide, /Approve only a package you trust/);
          assert.equal(await wide.getByText("net:tracker.example.com").count(), 0);
          await expectText(notice, /net:tracker\.example\.com/);
          const approve = notice.getByRole("button", { name: EXTENSION.approveUpdate });
          const look = await approve.getAttribute("class");
          assert.match(look ?? "", /\bdanger\b/);
          assert.doesNotMatch(look ?? "", /\bprimary\b/, "Approve does not look like the default");
          assert.equal(await hasFocus(approve), false, "Approve does not have the focus");
          // Enter where the page left the focus approves nothing.
          await page.keyboard.press("Enter");
          await expectText(notice, /net:localhost/);
          await watched.assertAccessible(`an update asking for a wide permission (${colorScheme})`);
          await watched.screenshot(`update-waiting-wide-${colorScheme}`);
          await watched.close();
        }
        assert.equal(await which(id), "1.0.0", "nothing was approved");
      },
    );
  } finally {
    await installation.close();
    await browser.close();
  }
});
