import assert from "node:assert/strict";
import { join } from "node:path";
import { installPackage } from "../../runtime/lifecycle/install.ts";
import { readInstallCard } from "../../runtime/lifecycle/install_card.ts";
import { readServingState, servingPackage } from "../../runtime/packages/mod.ts";
import { runSync } from "../internal/cli.ts";
import { type PackageSpec, testHost, writePackage } from "../internal/packages.ts";
import { rejectsWith } from "../internal/rejects_with.ts";

function tools(version: string, processes: unknown[]): PackageSpec {
  return {
    id: "tools",
    version,
    permissions: ["background", "host.processes"],
    handlers: ["tools.ping"],
    service: `export default function register() { return { "tools.ping": () => 1 }; }`,
    manifest: { host: { processes } },
  };
}

const LSP = { id: "lsp", program: "typescript-language-server", args: ["--stdio"] };

Deno.test("declared programs are approved by name, each as full user access", async (t) => {
  const env = await testHost();
  const packages = join(env.home, "..", "packages");
  try {
    await t.step("`readInstallCard()` names each program and its arguments", async () => {
      const folder = await writePackage(packages, tools("1.0.0", [LSP]));
      const card = await readInstallCard(env.host, folder, env.project);
      assert.equal(card.approval, "new");
      const line = card.permissions.find((p) => p.permission.startsWith("process:"));
      assert.equal(
        line?.line,
        "process:lsp typescript-language-server --stdio — full user access: may run " +
          "typescript-language-server --stdio as you, and that program may read, change and " +
          "send anything you can",
      );
      await rejectsWith(
        installPackage(env.host, folder, env.project),
        "ApprovalRequiredError",
        /process:lsp typescript-language-server --stdio — full user access/,
      );
      await installPackage(env.host, folder, env.project, { approve: true });
      assert.equal((await readInstallCard(env.host, folder, env.project)).approval, "approved");
    });

    await t.step(
      "an update that adds a program widens, though host.processes was approved",
      async () => {
        const folder = await writePackage(
          packages,
          tools("1.1.0", [LSP, { id: "fetch", program: "curl", args: ["-s"] }]),
        );
        const card = await readInstallCard(env.host, folder, env.project);
        assert.equal(card.approval, "widens");
        assert.deepEqual(card.permissions.map((p) => p.permission), ["process:fetch curl -s"]);
        // Each version is its own folder: the person agreed to replace the one before.
        await rejectsWith(
          installPackage(env.host, folder, env.project, { replace: true }),
          "ApprovalRequiredError",
          /Cannot update tools to 1\.1\.0[^]*process:fetch curl -s — full user access/,
        );
        const serving = await servingPackage(env.kv, env.project, "tools", {
          declaredIds: ["tools"],
        });
        assert.equal(serving.manifest.version, "1.0.0", "the approved version keeps serving");
        const state = await readServingState(env.kv, env.project, "tools");
        assert.equal(state.state, "awaits-approval");
      },
    );

    await t.step("an update that changes a program's arguments widens", async () => {
      const folder = await writePackage(
        packages,
        tools("1.2.0", [{ ...LSP, args: ["--stdio", "--log-level=4"] }]),
      );
      const card = await readInstallCard(env.host, folder, env.project);
      assert.equal(card.approval, "widens");
      assert.deepEqual(card.permissions.map((p) => p.permission), [
        "process:lsp typescript-language-server --stdio --log-level=4",
      ]);
    });

    await t.step("an update with the same programs needs no approval", async () => {
      const folder = await writePackage(packages, tools("1.3.0", [LSP]));
      assert.equal((await readInstallCard(env.host, folder, env.project)).approval, "approved");
      const result = await installPackage(env.host, folder, env.project, { replace: true });
      assert.deepEqual(result.approved, []);
    });
  } finally {
    await env.close();
  }
});

Deno.test("`sync install` prints each declared program as full user access", async () => {
  const root = await Deno.makeTempDir({ prefix: "sync-process-approval-" });
  try {
    const project = join(root, "project");
    await Deno.mkdir(project);
    const folder = await writePackage(join(root, "packages"), tools("1.0.0", [LSP]));
    const result = await runSync(join(root, "home"), ["install", folder, "--project", project]);
    assert.notEqual(result.code, 0);
    assert.match(
      result.stderr,
      /process:lsp typescript-language-server --stdio — full user access: may run typescript-language-server --stdio as you/,
    );
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
