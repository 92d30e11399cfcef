import assert from "node:assert/strict";
import { join } from "node:path";
import { knownProjectPath, projectOrWhereItWent } from "../../runtime/clock/known_project_path.ts";
import { addScheduledProject } from "../../runtime/clock/scheduled_projects.ts";
import { NotFoundError } from "../../runtime/errors.ts";
import { rememberProject } from "../../runtime/projects/project.ts";

Deno.test("`knownProjectPath()` and `projectOrWhereItWent()` find where a named project went", async (t) => {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "sync-known-project-" }));
  const kv = await Deno.openKv(":memory:");
  const here = join(root, "here");
  const remembered = join(root, "remembered");
  const scheduled = join(root, "scheduled");
  const unknown = join(root, "unknown");
  try {
    for (const dir of [here, remembered, scheduled]) await Deno.mkdir(dir);
    await rememberProject(kv, remembered, { now: Date.now });
    await addScheduledProject(kv, scheduled);
    await Deno.remove(remembered);
    await Deno.remove(scheduled);

    await t.step(
      "`knownProjectPath()` answers a folder that is there by its real path",
      async () => {
        assert.equal(await knownProjectPath(kv, join(here, ".")), here);
      },
    );

    await t.step("`knownProjectPath()` answers a gone folder the installation knows", async () => {
      assert.equal(await knownProjectPath(kv, remembered), remembered);
      assert.equal(await knownProjectPath(kv, scheduled), scheduled);
    });

    await t.step("`knownProjectPath()` refuses a gone folder nobody knows", async () => {
      await assert.rejects(knownProjectPath(kv, unknown), NotFoundError);
    });

    await t.step(
      "`projectOrWhereItWent()` says how to fix a gone folder on the clock's list",
      async () => {
        assert.equal(await projectOrWhereItWent(kv, here), here);
        await assert.rejects(
          projectOrWhereItWent(kv, scheduled),
          (error) =>
            error instanceof NotFoundError &&
            error.message.startsWith(`The folder ${scheduled} is gone; the clock still has it`) &&
            error.message.endsWith(`sync projects forget ${scheduled}`),
        );
        await assert.rejects(
          projectOrWhereItWent(kv, remembered),
          (error) =>
            error instanceof NotFoundError &&
            error.message === `Cannot open project ${remembered}: the folder does not exist; ` +
                `check the path, or create the folder first`,
        );
      },
    );
  } finally {
    kv.close();
    await Deno.remove(root, { recursive: true });
  }
});
