import assert from "node:assert/strict";
import { testHost } from "../internal/packages.ts";
import { canListOpenFiles, deletedFilesHeldOpen } from "../internal/open_files.ts";
import { listRecords, projectMemoryPath } from "../../runtime/memory/store.ts";
import { writeDeclaredIds } from "../../runtime/projects/project.ts";

const NOTES = `
import { memory } from "@sync/extension-api/service";
export default function register() {
  return {
    "notes.write": async (name) => {
      await memory.write({ key: "notes.note/" + name, title: name });
      return (await memory.list({ kind: "notes.note" })).records.map((r) => r.key);
    },
  };
}`;

/** The records another process (`sync records`) finds in the folder's memory file now. */
async function recordsOnDisk(project: string): Promise<string[]> {
  using memory = await Deno.openKv(projectMemoryPath(project));
  return (await listRecords(memory, { kind: "notes.note" })).records.map((r) => r.key);
}

Deno.test("a project folder removed and made again at the same path: the next call writes into the new folder's memory, not the deleted file", async (t) => {
  const env = await testHost();
  try {
    await env.install({ id: "notes", handlers: ["notes.write"], service: NOTES });
    assert.deepEqual(await env.call("notes", "notes.write", "before"), ["notes.note/before"]);
    assert.deepEqual(await recordsOnDisk(env.project), ["notes.note/before"]);

    await Deno.remove(env.project, { recursive: true });
    await Deno.mkdir(env.project);
    await writeDeclaredIds(env.project, ["notes"]);

    await t.step("the call sees the new folder's memory, which is empty", async () => {
      assert.deepEqual(await env.call("notes", "notes.write", "after"), ["notes.note/after"]);
    });
    await t.step("what it wrote is in the file under the path", async () => {
      assert.deepEqual(await recordsOnDisk(env.project), ["notes.note/after"]);
      const memory = await env.host.projectMemory(env.project);
      assert.deepEqual(
        (await listRecords(memory, { kind: "notes.note" })).records.map((r) => r.key),
        ["notes.note/after"],
      );
    });
    if (await canListOpenFiles()) {
      await t.step("the deleted memory is no longer held open", async () => {
        assert.deepEqual(await deletedFilesHeldOpen(env.project), []);
      });
    }
  } finally {
    await env.close();
  }
});
