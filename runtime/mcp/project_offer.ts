/**
 * What a project offers agents right now: the packages that can serve it
 * (installed and approved), the record kinds they publish, the handlers they
 * declare as agent tools, and what each tells an agent. An unapproved or
 * removed package offers nothing.
 *
 * @module
 */
import {
  type AgentTool,
  type LoadedPackage,
  publishedKinds,
  runNowRefusal,
  servingPackage,
} from "../packages/mod.ts";
import { readDeclaredIds } from "../projects/mod.ts";
import { MCP_LIMITS } from "./mcp_limits.ts";

/** A handler a package declares with `agent`: a tool on sync-mcp. */
export interface HandlerTool {
  /** The tool's name on sync-mcp, derived from the handler's ({@linkcode toolNameOf}). */
  name: string;
  /** The package whose handler it is. */
  packageId: string;
  /** The package's version serving the project. */
  version: string;
  /** The handler's name, such as `hello.greet`. */
  handler: string;
  /** The manifest's `agent` entry: the tool's description and input schema. */
  agent: AgentTool;
}

/** What a package tells an agent (its `prompt` file): an MCP prompt. */
export interface PackagePrompt {
  /** The prompt's name: the package id. */
  name: string;
  /** The package's name, as a person sees it. */
  title: string;
  /** The package's description. */
  description: string;
  /** The package's folder. */
  dir: string;
  /** The prompt file, relative to the package, as the manifest names it. */
  file: string;
}

/** What a project offers agents. */
export interface ProjectOffer {
  /** Record kinds the serving packages publish: what an agent may read. */
  kinds: string[];
  /** Every handler declared with `agent`, by tool name. */
  tools: Map<string, HandlerTool>;
  /** Every package's prompt, by name. */
  prompts: Map<string, PackagePrompt>;
}

/** Tool names taken by sync-mcp itself; a handler tool never takes one. */
export const BUILT_IN_TOOLS: readonly string[] = [
  "memory_list",
  "memory_record",
  "memory_content",
  "work_order",
  "work_state",
];

/**
 * The tool name of a handler: its name with every character MCP clients do
 * not all accept in a tool name (anything but letters, digits, `_` and `-`)
 * made `_`, cut to 64 characters: `issues.poll` → `issues_poll`.
 *
 * @param handler The handler's name, such as `issues.poll`.
 */
export function toolNameOf(handler: string): string {
  return handler.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 64);
}

/**
 * Reads what the project offers agents now, from the packages that serve it.
 *
 * @param kv The installation's KV (refs and approvals).
 * @param project The project's resolved folder.
 * @param log Where a package that cannot serve, or a tool name taken twice, is told.
 */
export async function readProjectOffer(
  kv: Deno.Kv,
  project: string,
  log: (line: string) => void = () => {},
): Promise<ProjectOffer> {
  const declaredIds = await readDeclaredIds(project);
  const offer: ProjectOffer = { kinds: [], tools: new Map(), prompts: new Map() };
  for (const id of declaredIds) {
    let pkg: LoadedPackage;
    try {
      pkg = await servingPackage(kv, project, id, { declaredIds });
    } catch {
      // Not approved, or its artefact is gone: it offers nothing right now.
      continue;
    }
    offer.kinds.push(...await publishedKinds(pkg));
    for (const [handler, declared] of Object.entries(pkg.manifest.handlers)) {
      if (!declared.agent) continue;
      const name = toolNameOf(handler);
      // What Sync runs as a package is installed or removed is no agent's to call.
      const refusal = runNowRefusal(pkg.manifest, handler);
      if (refusal !== null) {
        log(`[mcp] ${handler} of ${id} is not offered as a tool: ${refusal}`);
        continue;
      }
      if (BUILT_IN_TOOLS.includes(name) || offer.tools.has(name)) {
        log(`[mcp] ${handler} of ${id} is not offered as a tool: the name ${name} is taken`);
        continue;
      }
      offer.tools.set(name, {
        name,
        packageId: id,
        version: pkg.manifest.version,
        handler,
        agent: declared.agent,
      });
    }
    if (pkg.manifest.prompt !== undefined) {
      offer.prompts.set(id, {
        name: id,
        title: pkg.manifest.name,
        description: `What ${pkg.manifest.name} tells an agent: ${pkg.manifest.description}`
          .slice(0, MCP_LIMITS.maxDescriptionChars),
        dir: pkg.dir,
        file: pkg.manifest.prompt,
      });
    }
  }
  return offer;
}
