import assert from "node:assert/strict";
import { ApprovalRequiredError, NotFoundError } from "../../runtime/errors.ts";
import { writeApproval } from "../../runtime/packages/approval.ts";
import {
  describeServingState,
  readServingState,
  servingPackage,
  type ServingState,
} from "../../runtime/packages/serving.ts";
import { type PackageRef, setPackageRef } from "../../runtime/packages/store.ts";
import { writePackage } from "../internal/packages.ts";

const PROJECT = "/projects/one";

/** A package folder on disk, and a ref to it. */
async function artefact(
  root: string,
  id: string,
  version: string,
  permissions: string[],
): Promise<PackageRef> {
  const dir = await writePackage(root, {
    id,
    version,
    permissions,
    handlers: [`${id}.run`],
    service: "export default function register() { return {}; }\n",
  });
  return { id, version, source: "folder", dir, installedAt: new Date(0).toISOString() };
}

async function approve(kv: Deno.Kv, ref: PackageRef, permissions: string[]): Promise<void> {
  await writeApproval(kv, PROJECT, {
    id: ref.id,
    version: ref.version,
    ref,
    permissions,
    approvedAt: new Date(0).toISOString(),
  });
}

/** The words `sync list` prints, or the state's name when it has no current artefact. */
function words(serving: ServingState): string {
  return "current" in serving ? describeServingState(serving) : serving.state;
}

function serves(kv: Deno.Kv, id: string): Promise<string> {
  return servingPackage(kv, PROJECT, id, { declaredIds: [id] }).then((pkg) => pkg.manifest.version);
}

Deno.test("`servingPackage()` and `readServingState()` go by one rule", async (t) => {
  const root = await Deno.makeTempDir({ prefix: "sync-serving-" });
  const kv = await Deno.openKv(":memory:");
  try {
    await t.step("approved: the current artefact serves", async () => {
      const ref = await artefact(root, "plain", "1.0.0", ["background"]);
      await setPackageRef(kv, ref);
      await approve(kv, ref, ["background"]);
      assert.equal(words(await readServingState(kv, PROJECT, "plain")), "approved");
      assert.equal(await serves(kv, "plain"), "1.0.0");
    });

    await t.step("not approved here: nothing serves until a person approves", async () => {
      await setPackageRef(kv, await artefact(root, "fresh", "1.0.0", ["background"]));
      assert.equal(words(await readServingState(kv, PROJECT, "fresh")), "not approved here");
      await assert.rejects(serves(kv, "fresh"), (error: Error) => {
        assert.ok(error instanceof ApprovalRequiredError);
        assert.equal(
          error.message,
          `fresh is listed in ${PROJECT} but not approved on this machine; ` +
            `run: sync install <folder|archive> --project ${PROJECT} --approve`,
        );
        return true;
      });
    });

    await t.step("a widening update waits, and the approved version serves", async () => {
      const v1 = await artefact(root, "widen", "1.0.0", ["background"]);
      await approve(kv, v1, ["background"]);
      await setPackageRef(kv, await artefact(root, "widen", "2.0.0", ["background", "net:a.test"]));
      const state = await readServingState(kv, PROJECT, "widen");
      assert.equal(words(state), "2.0.0 awaits approval of net:a.test; 1.0.0 serves");
      assert.equal(await serves(kv, "widen"), "1.0.0");
    });

    await t.step("a folder widened in place has nothing approved left to serve", async () => {
      const ref = await artefact(root, "edited", "2.0.0", ["background", "net:a.test"]);
      await setPackageRef(kv, ref);
      await approve(kv, ref, ["background"]);
      const state = await readServingState(kv, PROJECT, "edited");
      assert.equal(words(state), "2.0.0 awaits approval of net:a.test; nothing serves");
      await assert.rejects(serves(kv, "edited"), (error: Error) => {
        assert.ok(error instanceof ApprovalRequiredError);
        assert.equal(
          error.message,
          `edited@2.0.0 asks for net:a.test, which ${PROJECT} has not approved; ` +
            `run sync install with --approve to approve it`,
        );
        return true;
      });
    });

    await t.step("an id with no artefact on this machine, or one that cannot load", async () => {
      assert.equal(words(await readServingState(kv, PROJECT, "absent")), "not-on-machine");
      const gone = await artefact(root, "gone", "1.0.0", ["background"]);
      await setPackageRef(kv, gone);
      await Deno.remove(gone.dir, { recursive: true });
      assert.deepEqual(await readServingState(kv, PROJECT, "gone"), {
        state: "cannot-load",
        message: `Cannot load gone: its folder ${gone.dir} is gone; install it again`,
        source: gone.source,
      });
    });
  } finally {
    kv.close();
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("`servingPackage()` serves only ids the project lists", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    await assert.rejects(
      servingPackage(kv, PROJECT, "issues", { declaredIds: ["notes", "chat"] }),
      (error: Error) =>
        error instanceof NotFoundError &&
        error.message ===
          `issues is not installed in ${PROJECT} (installed: notes, chat); ` +
            `install it with sync install <folder|archive> --project ${PROJECT}`,
    );
    await assert.rejects(
      servingPackage(kv, PROJECT, "issues", { declaredIds: [] }),
      (error: Error) =>
        error instanceof NotFoundError &&
        error.message ===
          `issues is not installed in ${PROJECT} (nothing is installed there); ` +
            `install it with sync install <folder|archive> --project ${PROJECT}`,
    );
  } finally {
    kv.close();
  }
});
