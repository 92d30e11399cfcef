import assert from "node:assert/strict";
import { join } from "node:path";
import {
  addScheduledProject,
  forgetScheduledProject,
  isScheduledProject,
  listScheduledProjects,
  rememberIfScheduled,
} from "../../runtime/clock/scheduled_projects.ts";
import { writeApproval } from "../../runtime/packages/approval.ts";
import { setPackageRef, storePackage } from "../../runtime/packages/store.ts";
import { rememberProject, writeDeclaredIds } from "../../runtime/projects/project.ts";
import { InvalidInputError, NotFoundError } from "../../runtime/errors.ts";
import { writePackage } from "../internal/packages.ts";

const T0 = Date.UTC(2030, 0, 1, 9, 0, 0);
const now = () => T0;

Deno.test("`addScheduledProject()` and `forgetScheduledProject()` keep the clock's own list", async (t) => {
  using kv = await Deno.openKv(":memory:");

  await t.step("adding answers true the first time, with when it was added", async () => {
    assert.equal(await addScheduledProject(kv, "/projects/alpha", { now }), true);
    assert.equal(await isScheduledProject(kv, "/projects/alpha"), true);
    assert.deepEqual(await listScheduledProjects(kv), [
      { path: "/projects/alpha", addedAt: new Date(T0).toISOString() },
    ]);
  });

  await t.step("adding again answers false and keeps the first time", async () => {
    assert.equal(await addScheduledProject(kv, "/projects/alpha", { now: () => T0 + 1 }), false);
    assert.deepEqual(await listScheduledProjects(kv), [
      { path: "/projects/alpha", addedAt: new Date(T0).toISOString() },
    ]);
  });

  await t.step("an empty or missing path is refused", async () => {
    await assert.rejects(
      addScheduledProject(kv, "", { now }),
      (error) =>
        error instanceof InvalidInputError &&
        error.message === "A project path must be a non-empty string, got an empty string.",
    );
    await assert.rejects(
      isScheduledProject(kv, undefined as unknown as string),
      (error) =>
        error instanceof InvalidInputError &&
        error.message === "A project path must be a non-empty string, got undefined.",
    );
  });

  await t.step("forgetting answers whether the project was on the list", async () => {
    assert.equal(await forgetScheduledProject(kv, "/projects/alpha"), true);
    assert.equal(await isScheduledProject(kv, "/projects/alpha"), false);
    assert.equal(await forgetScheduledProject(kv, "/projects/alpha"), false);
    assert.deepEqual(await listScheduledProjects(kv), []);
  });

  await t.step("the list is in path order and never capped", async () => {
    const paths = Array.from({ length: 150 }, (_, i) => `/projects/p${String(i).padStart(3, "0")}`);
    for (const path of [...paths].reverse()) await addScheduledProject(kv, path, { now });
    assert.deepEqual((await listScheduledProjects(kv)).map((p) => p.path), paths);
  });
});

Deno.test("`rememberIfScheduled()` puts a project on the list when a serving package has a schedule", async (t) => {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "sync-scheduled-" }));
  using kv = await Deno.openKv(":memory:");

  /** Stores a package from a folder, approves it in `project` unless told not to. */
  async function put(project: string, id: string, schedule: boolean, approve = true) {
    const dir = await writePackage(join(root, "packages"), {
      id,
      permissions: schedule ? ["background", "schedule"] : ["background"],
      handlers: [`${id}.run`],
      service: `export default function register() { return { "${id}.run": () => 1 }; }`,
      manifest: schedule
        ? { schedule: [{ handler: `${id}.run`, description: "Looks", every: "1h" }] }
        : {},
    });
    const stored = await storePackage(dir, {
      home: join(root, "home"),
      now,
      admit: async () => {},
    });
    await setPackageRef(kv, stored.ref);
    if (approve) {
      await writeApproval(kv, project, {
        id,
        version: stored.ref.version,
        ref: stored.ref,
        permissions: stored.manifest.permissions,
        approvedAt: new Date(T0).toISOString(),
      });
    }
  }

  async function project(name: string, ids: string[]): Promise<string> {
    const dir = join(root, name);
    await Deno.mkdir(dir);
    await writeDeclaredIds(dir, ids);
    return dir;
  }

  try {
    await t.step("a project never opened is read from its file", async () => {
      const alpha = await project("alpha", ["plain", "ticker"]);
      await put(alpha, "plain", false);
      await put(alpha, "ticker", true);
      assert.equal(await rememberIfScheduled(kv, `${alpha}/.`, { now }), true);
      assert.deepEqual(await listScheduledProjects(kv), [
        { path: alpha, addedAt: new Date(T0).toISOString() },
      ]);
    });

    await t.step("a project on the list already stays as it was added", async () => {
      const alpha = join(root, "alpha");
      assert.equal(await rememberIfScheduled(kv, alpha, { now: () => T0 + 1 }), true);
      assert.deepEqual((await listScheduledProjects(kv)).map((p) => p.addedAt), [
        new Date(T0).toISOString(),
      ]);
    });

    await t.step("a project with no scheduled package is not put on it", async () => {
      const beta = await project("beta", ["plain"]);
      await put(beta, "plain", false);
      assert.equal(await rememberIfScheduled(kv, beta, { now }), false);
      assert.equal(await isScheduledProject(kv, beta), false);
    });

    await t.step("a scheduled package not approved there is passed over", async () => {
      const gamma = await project("gamma", ["ticker"]);
      assert.equal(await rememberIfScheduled(kv, gamma, { now }), false);
      assert.equal(await isScheduledProject(kv, gamma), false);
    });

    await t.step("an opened project goes by the ids remembered, not its file", async () => {
      const delta = await project("delta", []);
      await put(delta, "ticker", true);
      await writeDeclaredIds(delta, ["ticker"]);
      await rememberProject(kv, delta, { now });
      await writeDeclaredIds(delta, []);
      assert.equal(await rememberIfScheduled(kv, delta, { now }), true, "remembered: ticker");

      const epsilon = await project("epsilon", []);
      await rememberProject(kv, epsilon, { now });
      await put(epsilon, "ticker", true);
      await writeDeclaredIds(epsilon, ["ticker"]);
      assert.equal(await rememberIfScheduled(kv, epsilon, { now }), false, "remembered: none");
    });

    await t.step("a folder that does not exist is refused", async () => {
      const missing = join(root, "missing");
      await assert.rejects(
        rememberIfScheduled(kv, missing, { now }),
        (error) =>
          error instanceof NotFoundError &&
          error.message === `Cannot open project ${missing}: the folder does not exist; ` +
              `check the path, or create the folder first`,
      );
    });
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
