import assert from "node:assert/strict";
import { join } from "node:path";
import { runSync } from "../../internal/cli.ts";
import { ServeProcess } from "../../internal/serve_process.ts";

Deno.test("`sync devices` runs in the serve that owns the installation", async (t) => {
  const root = await Deno.makeTempDir({ prefix: "sync-test-" });
  const home = join(root, "home");
  const project = join(root, "project");
  await Deno.mkdir(project);
  const serve = new ServeProcess(home);
  try {
    const url = new URL(await serve.url());
    const token = url.searchParams.get("token")!;

    await t.step("list, sent over the socket, answers from the serve's task runner", async () => {
      const listed = await runSync(home, ["devices", "list", "--project", project]);
      assert.equal(listed.code, 0, listed.stderr);
      assert.match(listed.stdout, /^No device in /);
    });

    await t.step(
      "connect --origin with nothing on stdin gives no credential, and says so",
      async () => {
        const refused = await runSync(home, [
          "devices",
          "connect",
          "mail",
          "--origin",
          "https://mail.example",
          "--project",
          project,
        ]);
        assert.equal(refused.code, 2, "refused as bad input");
        assert.match(refused.stderr, /No credential was given: type it at the prompt, or pipe it/);
      },
    );

    await t.step("the window's devices API is mounted on the serve", async () => {
      const response = await fetch(
        new URL(`/api/devices?project=${encodeURIComponent(project)}`, url),
        { headers: { cookie: `sync_token_${url.port}=${token}` } },
      );
      assert.equal(response.status, 200);
      assert.deepEqual((await response.json()).devices, []);
    });

    await t.step("stopping the serve stops the task runner with it", async () => {
      const status = await serve.stop("SIGTERM");
      assert.equal(status.code, 0, serve.lines.join("\n"));
    });
  } finally {
    await serve.stop("SIGKILL").catch(() => {});
    await Deno.remove(root, { recursive: true });
  }
});
