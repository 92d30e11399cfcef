/**
 * Test helpers: package folders written into temp dirs, and a host over
 * real KV with a temp project.
 *
 * @module
 */
import { join } from "node:path";
import { definedAgents, sessionWorkState } from "../../runtime/cli/installation_work.ts";
import { Host } from "../../runtime/host/host.ts";
import { installPackage } from "../../runtime/lifecycle/install.ts";
import { DEFAULT_LIMITS, type HandlerLimits } from "../../runtime/limits.ts";
import type { ParserPool } from "../../runtime/parsers/mod.ts";

/** A package to write: its manifest fields and its service module source. */
export interface PackageSpec {
  id: string;
  version?: string;
  permissions?: string[];
  /** Handler names (without the id prefix is not allowed: give full names). */
  handlers: string[];
  /** The service module's source (plain ES module JavaScript). */
  service: string;
  /** types/<file> → kind, for published types. */
  types?: Record<string, string>;
  /** A built screen's source (plain ES module JavaScript), written as `ui/index.js`. */
  ui?: string;
  /** More manifest fields, merged over the rest. */
  manifest?: Record<string, unknown>;
}

/** Writes a package folder under `root` and returns its path. */
export async function writePackage(root: string, spec: PackageSpec): Promise<string> {
  const dir = join(
    root,
    `${spec.id}-${spec.version ?? "1.0.0"}-${crypto.randomUUID().slice(0, 8)}`,
  );
  await Deno.mkdir(join(dir, "service"), { recursive: true });
  const types = Object.keys(spec.types ?? {});
  if (types.length) await Deno.mkdir(join(dir, "types"));
  for (const [file, kind] of Object.entries(spec.types ?? {})) {
    await Deno.writeTextFile(join(dir, "types", file), JSON.stringify({ kind, title: kind }));
  }
  const manifest = {
    id: spec.id,
    name: spec.id[0].toUpperCase() + spec.id.slice(1),
    version: spec.version ?? "1.0.0",
    description: `The ${spec.id} test package`,
    permissions: spec.permissions ?? ["background"],
    service: "service/index.js",
    handlers: Object.fromEntries(spec.handlers.map((h) => [h, { description: `Does ${h}` }])),
    ...(types.length ? { types: types.map((t) => `types/${t}`) } : {}),
    ...(spec.ui !== undefined ? { ui: "ui/index.js" } : {}),
    ...spec.manifest,
  };
  if (spec.ui !== undefined) {
    await Deno.mkdir(join(dir, "ui"), { recursive: true });
    await Deno.writeTextFile(join(dir, "ui", "index.js"), spec.ui);
  }
  await Deno.writeTextFile(join(dir, "manifest.json"), JSON.stringify(manifest, null, 2));
  await Deno.writeTextFile(join(dir, "service", "index.js"), spec.service);
  return dir;
}

/** A host over a fresh installation with one empty project. */
export interface TestHost {
  host: Host;
  kv: Deno.Kv;
  /** Where the installation KV is: a file with `onDisk`, else `:memory:`. */
  kvPath: string;
  home: string;
  /** Real path of the project folder. */
  project: string;
  /** Console lines handlers wrote. */
  logs: string[];
  /** Writes and installs (approved) a package; returns its folder. */
  install(spec: PackageSpec): Promise<string>;
  /**
   * Installs a package whose service module is clean, then puts `spec.service`
   * in its linked folder, as an author editing it after install would. For
   * testing what the runtime does with code that install (and check) refuse.
   */
  installThenEdit(spec: PackageSpec): Promise<string>;
  /** Calls a handler as a person would from the CLI. */
  call(id: string, handler: string, payload?: unknown): Promise<unknown>;
  close(): Promise<void>;
}

/** Options for {@linkcode testHost}. */
export interface TestHostOptions {
  limits?: Partial<HandlerLimits>;
  now?: () => number;
  /** Keeps the installation KV in a file (`TestHost.kvPath`), as `serve` does, not in memory. */
  onDisk?: boolean;
  poolSize?: number;
  /** `work.state()` answers from the sessions' pointers, as in `sync serve` and the CLI. */
  readsWorkState?: boolean;
  /** `work.order()` and `work_order` refuse agents the installation does not define, as in `sync serve`. */
  definesAgents?: boolean;
  /** The parsers `account.parse*` use; the host's own by default. */
  parsers?: ParserPool;
}

/** Makes a host over `:memory:` installation KV, a temp home and a temp project. */
export async function testHost(options: TestHostOptions = {}): Promise<TestHost> {
  const root = await Deno.makeTempDir({ prefix: "sync-test-" });
  const home = join(root, "home");
  const project = join(root, "project");
  await Deno.mkdir(project, { recursive: true });
  const kvPath = options.onDisk ? join(root, "installation.kv") : ":memory:";
  const kv = await Deno.openKv(kvPath);
  const logs: string[] = [];
  const limits = { ...DEFAULT_LIMITS, ...options.limits };
  const host = new Host({
    kv,
    home,
    limits,
    now: options.now,
    log: (line) => logs.push(line),
    workState: options.readsWorkState ? sessionWorkState(kv) : undefined,
    agents: options.definesAgents ? definedAgents(kv) : undefined,
    parsers: options.parsers,
  });
  const realProject = await Deno.realPath(project);
  return {
    host,
    kv,
    kvPath,
    home,
    project: realProject,
    logs,
    async install(spec) {
      const dir = await writePackage(join(root, "packages"), spec);
      await installPackage(host, dir, realProject, { approve: true, replace: true });
      return dir;
    },
    async installThenEdit(spec) {
      const clean = spec.handlers.map((h) => `    ${JSON.stringify(h)}: () => null,`).join("\n");
      const dir = await writePackage(join(root, "packages"), {
        ...spec,
        service: `export default function register() {\n  return {\n${clean}\n  };\n}\n`,
      });
      await installPackage(host, dir, realProject, { approve: true, replace: true });
      await Deno.writeTextFile(join(dir, "service", "index.js"), spec.service);
      return dir;
    },
    async call(id, handler, payload) {
      const { value } = await host.callHandler(realProject, id, handler, {
        occasion: { kind: "extension" },
        source: { kind: "person" },
        payload,
      });
      return value;
    },
    async close() {
      await host.close();
      kv.close();
      await Deno.remove(root, { recursive: true });
    },
  };
}
