import assert from "node:assert/strict";

const ROOT = new URL("../../", import.meta.url);

/** The permission flags on each task's command line (every command of a chained task). */
async function taskFlags(): Promise<Map<string, string[]>> {
  const config = JSON.parse(await Deno.readTextFile(new URL("deno.json", ROOT)));
  const flags = new Map<string, string[]>();
  for (const [task, command] of Object.entries(config.tasks as Record<string, string>)) {
    flags.set(
      task,
      command.split(/\s+/).filter((word) => word === "-A" || word.startsWith("--allow-")),
    );
  }
  return flags;
}

interface FlagRow {
  flag: string;
  tasks: string[];
  why: string;
}

/** The rows of the flags table under "The process's own permissions" in docs/security.md. */
async function flagRows(): Promise<FlagRow[]> {
  const text = await Deno.readTextFile(new URL("docs/security.md", ROOT));
  const start = text.indexOf("\n## The process's own permissions\n");
  assert.ok(start >= 0, `docs/security.md has no "The process's own permissions" section`);
  const section = text.slice(start + 1).split(/\n## /)[0];
  const rows = section.split("\n").filter((line) => line.startsWith("|")).slice(2);
  assert.ok(rows.length > 0, "the permissions section has no flags table");
  return rows.map((line) => {
    const cells = line.slice(1, -1).split("|").map((cell) => cell.trim());
    assert.equal(cells.length, 4, `a flags table row has four cells: ${line}`);
    const [flag, tasks, , why] = cells;
    return {
      flag: flag.replace(/^`|`$/g, ""),
      tasks: [...tasks.matchAll(/`([^`]+)`/g)].map((match) => match[1]),
      why,
    };
  });
}

Deno.test("`deno.json`'s tasks use only the permission flags `docs/security.md` justifies", async (t) => {
  const tasks = await taskFlags();
  const rows = await flagRows();

  await t.step("every flag without a scope has a row naming its task, saying why", () => {
    const unjustified: string[] = [];
    for (const [task, flags] of tasks) {
      for (const flag of flags.filter((flag) => !flag.includes("="))) {
        const row = rows.find((row) => row.flag === flag && row.tasks.includes(task));
        if (!row || row.why.replace(/[—-]/g, "").trim() === "") {
          unjustified.push(`${task}: ${flag}`);
        }
      }
    }
    assert.deepEqual(
      unjustified,
      [],
      "these flags allow everything of their kind and docs/security.md does not say why; " +
        "scope them, or add a row to the flags table",
    );
  });

  await t.step("every row names flags its tasks have", () => {
    const stale: string[] = [];
    for (const row of rows) {
      assert.ok(row.tasks.length > 0, `the row for ${row.flag} names no task`);
      for (const task of row.tasks) {
        if (!tasks.get(task)?.includes(row.flag)) stale.push(`${task}: ${row.flag}`);
      }
    }
    assert.deepEqual(stale, [], "the flags table names flags these tasks do not have");
  });

  await t.step("no task that runs Sync itself allows everything", async () => {
    const config = JSON.parse(await Deno.readTextFile(new URL("deno.json", ROOT)));
    const everything = [...tasks]
      .filter(([task]) => /\bmain\.ts\b/.test(config.tasks[task]))
      .filter(([, flags]) => flags.includes("-A") || flags.includes("--allow-all"))
      .map(([task]) => task);
    assert.deepEqual(everything, []);
  });
});
