import assert from "node:assert/strict";
import { REPO_ROOT } from "../internal/cli.ts";

/** One import of a module, as `deno info --json` writes it. */
interface InfoDependency {
  specifier: string;
  /** Present when the import loads code (absent for `import type`). */
  code?: { specifier?: string };
  /** True for an `import()`. */
  isDynamic?: boolean;
}

/** What `deno info --json` says of the module graph. */
interface Info {
  modules: { specifier: string; kind: string; dependencies?: InfoDependency[] }[];
  redirects: Record<string, string>;
}

/** The domains of the runtime the CLI's own path must not load. */
const HEAVY = /^runtime\/(host|isolate|agents|mcp|web)\//;

/** `deno info --json main.ts`, run from the repository. */
async function mainGraph(): Promise<Info> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", "main.ts"],
    cwd: REPO_ROOT,
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.ok(output.success, new TextDecoder().decode(output.stderr));
  return JSON.parse(new TextDecoder().decode(output.stdout)) as Info;
}

/** A module's specifier as a path in the repository (`runtime/cli/sync.ts`), or as it is. */
function named(specifier: string): string {
  const root = REPO_ROOT.href;
  return specifier.startsWith(root) ? specifier.slice(root.length) : specifier;
}

/**
 * What loading `entries` loads before anything else runs: every module
 * reached through static imports that load code (an `import type` loads
 * nothing; an `import()` loads only when it runs), and the targets of the
 * `import()`s met on the way, which are not in it.
 */
function staticClosure(info: Info, entries: string[]): { loaded: Set<string>; later: Set<string> } {
  const modules = new Map(info.modules.map((module) => [module.specifier, module]));
  const loaded = new Set<string>();
  const later = new Set<string>();
  const stack = entries.map((entry) => new URL(entry, REPO_ROOT).href);
  while (stack.length > 0) {
    const at = stack.pop()!;
    const specifier = info.redirects[at] ?? at;
    if (loaded.has(specifier)) continue;
    loaded.add(specifier);
    for (const dependency of modules.get(specifier)?.dependencies ?? []) {
      const target = dependency.code?.specifier;
      if (target === undefined) continue;
      if (dependency.isDynamic) later.add(info.redirects[target] ?? target);
      else stack.push(target);
    }
  }
  for (const specifier of loaded) later.delete(specifier);
  return { loaded: new Set([...loaded].map(named)), later: new Set([...later].map(named)) };
}

/** The modules of `loaded` under the heavy domains, to list in a failure. */
function heavyOf(loaded: Set<string>): string[] {
  return [...loaded].filter((path) => HEAVY.test(path)).sort();
}

Deno.test("`runCli()`'s own path loads no module of the runtime's heavy domains", async (t) => {
  const info = await mainGraph();
  // `sync help`, and any command before it runs, load main.ts's static closure.
  const help = staticClosure(info, ["main.ts"]);

  await t.step("`sync help` loads nothing of host/, isolate/, agents/, mcp/ or web/", () => {
    assert.deepEqual(
      heavyOf(help.loaded),
      [],
      `sync help loads:\n${heavyOf(help.loaded).join("\n")}`,
    );
  });

  await t.step("`sync help` loads no npm package", () => {
    const npm = [...help.loaded].filter((specifier) => specifier.startsWith("npm:")).sort();
    assert.deepEqual(npm, [], `sync help loads:\n${npm.join("\n")}`);
  });

  await t.step("`sync help` loads no `node:` module", () => {
    // The first one sets up Deno's Node layer: several megabytes for a process that lives 50 ms.
    const node = [...help.loaded].filter((specifier) => specifier.startsWith("node:")).sort();
    assert.deepEqual(node, [], `sync help loads:\n${node.join("\n")}`);
  });

  await t.step("a command sent to a running serve loads nothing of them either", () => {
    // runCli decides the installation's owner (through_owner.ts, which sends
    // the command over the serve's socket with serve_client.ts) before it
    // imports the command's implementation: the forwarding path's entries
    // are main.ts and those two, and what it loads is their static closure.
    const forwarding = staticClosure(info, [
      "main.ts",
      "runtime/cli/through_owner.ts",
      "runtime/cli/serve_client.ts",
    ]);
    assert.deepEqual(
      heavyOf(forwarding.loaded),
      [],
      `sending a command loads:\n${heavyOf(forwarding.loaded).join("\n")}`,
    );
    const outside = [...forwarding.loaded].filter((specifier) => /^(npm|node):/.test(specifier));
    assert.deepEqual(outside, [], `sending a command loads:\n${outside.join("\n")}`);
  });

  await t.step("what the CLI imports later is a command's implementation, and only that", () => {
    // Each is imported by its command's declaration when the command runs in
    // this process; anything else imported later would be a path this test
    // does not follow.
    const others = [...help.later].filter((path) =>
      !/^runtime\/cli\/commands\/run_[a-z_]+\.ts$/.test(path)
    );
    assert.deepEqual(others, [], `imported later:\n${others.join("\n")}`);
    assert.ok(help.later.size > 0, "no command's implementation is imported later");
  });

  await t.step("deno.json has Deno read an `import()`'s module only when it runs", async () => {
    // Else Deno reads and parses, at start, every module a literal import()
    // names, and all they import: the whole runtime, for `sync help`.
    const config = JSON.parse(await Deno.readTextFile(new URL("deno.json", REPO_ROOT))) as {
      unstable?: string[];
    };
    assert.ok(config.unstable?.includes("lazy-dynamic-imports"), JSON.stringify(config.unstable));
  });

  await t.step("a command's implementation is the part that loads the runtime", () => {
    // The other side of the same line: `sync call` run here loads the host.
    const call = staticClosure(info, ["runtime/cli/commands/run_call.ts"]);
    assert.ok(call.loaded.has("runtime/host/mod.ts"), [...call.loaded].join("\n"));
  });
});
