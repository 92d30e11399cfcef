import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { REPO_ROOT } from "../internal/cli.ts";

/** One module of `deno info --json`, with what it imports. */
interface InfoModule {
  specifier: string;
  dependencies?: { code?: { specifier: string }; isDynamic?: boolean }[];
}

/**
 * The modules `entry` loads when it runs: those its static imports reach,
 * leaving out `import type` (erased) and dynamic imports (loaded when used).
 */
async function loadedModules(entry: string): Promise<string[]> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", entry],
    cwd: fileURLToPath(REPO_ROOT),
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(output.code, 0, new TextDecoder().decode(output.stderr));
  const info = JSON.parse(new TextDecoder().decode(output.stdout));
  const redirects = new Map<string, string>(Object.entries(info.redirects ?? {}));
  const modules = new Map<string, InfoModule>(
    (info.modules as InfoModule[]).map((module) => [module.specifier, module]),
  );
  const seen = new Set<string>();
  const pending: string[] = [...info.roots];
  while (pending.length > 0) {
    const raw = pending.pop()!;
    const specifier = redirects.get(raw) ?? raw;
    if (seen.has(specifier)) continue;
    seen.add(specifier);
    for (const dependency of modules.get(specifier)?.dependencies ?? []) {
      if (dependency.code && !dependency.isDynamic) pending.push(dependency.code.specifier);
    }
  }
  return [...seen].sort();
}

/** What of `loaded` no bridge may load: npm packages and the domains of the host and the server. */
function forbidden(loaded: string[]): string[] {
  const root = REPO_ROOT.href.replace(/\/?$/, "/");
  return loaded.filter((specifier) =>
    specifier.startsWith("npm:") ||
    /^runtime\/(host|isolate|agents|mcp|web)\//.test(
      specifier.startsWith(root) ? specifier.slice(root.length) : "",
    )
  );
}

Deno.test("`bridgeStdio()` loads no npm package and nothing of the server or the host", async (t) => {
  const loaded = await loadedModules("runtime/mcp_bridge/mod.ts");

  await t.step("its module graph holds its own domain and the few it reads", () => {
    assert.ok(
      loaded.some((specifier) => specifier.endsWith("/runtime/mcp_bridge/stdio_bridge.ts")),
    );
    assert.deepEqual(forbidden(loaded), []);
  });

  await t.step("the rule finds what the MCP server's domain loads", async () => {
    // The check sees npm packages and the host where they are: a graph that
    // has them is reported, so an empty report above means none.
    const found = forbidden(await loadedModules("runtime/mcp/mod.ts"));
    assert.ok(found.some((specifier) => specifier.startsWith("npm:")), found.join("\n"));
    assert.ok(found.some((specifier) => /\/runtime\/host\//.test(specifier)), found.join("\n"));
  });
});
