import assert from "node:assert/strict";
import { join } from "node:path";
import { approveUpdate } from "../../runtime/lifecycle/approve.ts";
import { readApproval } from "../../runtime/packages/approval.ts";
import { readServingState } from "../../runtime/packages/serving.ts";
import { readPackageRef } from "../../runtime/packages/store.ts";
import { readGeneration } from "../../runtime/memory/generation.ts";
import { testHost } from "../internal/packages.ts";
import { rejectsWith } from "../internal/rejects_with.ts";

Deno.test("approveUpdate() approves the stored version that waits, and nothing else", async (t) => {
  const env = await testHost();
  try {
    const dir = await env.install({
      id: "note",
      permissions: ["background"],
      handlers: ["note.add"],
      service: `export default function register() { return { "note.add": () => 1 }; }`,
    });

    await t.step("a package approved as it is has nothing waiting", async () => {
      await rejectsWith(
        approveUpdate(env.host, env.project, "note"),
        "ConflictError",
        /no update waits for approval; note@1\.0\.0 is approved and serves/,
      );
    });

    await t.step("a folder widened in place is approved and stays linked", async () => {
      const manifestPath = join(dir, "manifest.json");
      const manifest = JSON.parse(await Deno.readTextFile(manifestPath));
      manifest.version = "1.1.0";
      manifest.permissions = ["background", "net:api.example.com"];
      await Deno.writeTextFile(manifestPath, JSON.stringify(manifest));
      const waiting = await readServingState(env.kv, env.project, "note");
      assert.equal(waiting.state, "awaits-approval");
      const memory = await env.host.projectMemory(env.project);
      const before = await readGeneration(memory, "note");
      const result = await approveUpdate(env.host, env.project, "note");
      assert.equal(result.package.manifest.version, "1.1.0");
      assert.deepEqual(result.approved, ["net:api.example.com"]);
      assert.equal(result.installed, null);
      const ref = await readPackageRef(env.kv, "note");
      assert.equal(ref?.source, "folder");
      assert.equal(ref?.dir, dir);
      const approval = await readApproval(env.kv, env.project, "note");
      assert.equal(approval?.version, "1.1.0");
      assert.deepEqual(approval?.permissions, ["background", "net:api.example.com"]);
      assert.ok((await readGeneration(memory, "note")).value > before.value);
      assert.equal((await readServingState(env.kv, env.project, "note")).state, "approved");
    });

    await t.step("a package the project does not list is not found", async () => {
      await rejectsWith(
        approveUpdate(env.host, env.project, "absent"),
        "NotFoundError",
        /Cannot approve absent: it is not installed in .* \(installed: note\)/,
      );
    });

    await t.step("a package installed without approval here is not an update", async () => {
      const other = await Deno.realPath(await Deno.makeTempDir({ prefix: "sync-other-" }));
      try {
        await Deno.mkdir(join(other, ".sync"));
        await Deno.writeTextFile(
          join(other, ".sync", "extensions.json"),
          '{ "extensions": ["note"] }',
        );
        await rejectsWith(
          approveUpdate(env.host, other, "note"),
          "ConflictError",
          /never approved here, so nothing is an update/,
        );
        assert.equal(await readApproval(env.kv, other, "note"), null);
      } finally {
        await Deno.remove(other, { recursive: true });
      }
    });
  } finally {
    await env.close();
  }
});
