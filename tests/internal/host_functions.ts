/**
 * Test helper for host functions: the context one handler call gives them,
 * over a real package folder, real KV and a real transaction.
 *
 * @module
 */
import { join } from "node:path";
import type { HostFunctionContext } from "../../runtime/host/host_function.ts";
import { DEFAULT_LIMITS, type HandlerLimits } from "../../runtime/limits.ts";
import { MemoryAccess } from "../../runtime/memory/access.ts";
import { readGeneration } from "../../runtime/memory/generation.ts";
import { MemoryTransaction } from "../../runtime/memory/transaction.ts";
import { loadPackage } from "../../runtime/packages/store.ts";
import { writePackage } from "./packages.ts";

/** Options for {@linkcode functionContext}. */
export interface FunctionContextOptions {
  /** The calling package's id; `box` by default. */
  id?: string;
  /** Its manifest's permissions; `["background"]` by default. */
  permissions?: string[];
  /** Kinds installed packages publish in the project. */
  published?: string[];
  /** The project's path; `/projects/one` by default (nothing is read from it). */
  project?: string;
  /** Limits the call runs under, over the defaults. */
  limits?: Partial<HandlerLimits>;
  /** A fixed time, in ms; defaults to 2030-01-01. */
  now?: number;
}

/** A call's context, with the stores behind it. */
export interface FunctionContextSetup {
  context: HostFunctionContext;
  /** The installation's KV. */
  kv: Deno.Kv;
  /** The project's memory KV the transaction stages over. */
  memory: Deno.Kv;
  close(): Promise<void>;
}

/** The context a call of handler `<id>.run` gives host functions. */
export async function functionContext(
  options: FunctionContextOptions = {},
): Promise<FunctionContextSetup> {
  const id = options.id ?? "box";
  const root = await Deno.makeTempDir({ prefix: "sync-fn-" });
  const dir = await writePackage(join(root, "packages"), {
    id,
    permissions: options.permissions ?? ["background"],
    handlers: [`${id}.run`],
    service: "export default function register() { return {}; }\n",
  });
  const pkg = await loadPackage({
    id,
    version: "1.0.0",
    source: "folder",
    dir,
    installedAt: new Date(0).toISOString(),
  });
  const kv = await Deno.openKv(":memory:");
  const memory = await Deno.openKv(":memory:");
  const at = options.now ?? Date.parse("2030-01-01T00:00:00.000Z");
  const now = () => at;
  const transaction = new MemoryTransaction(memory, {
    packageId: id,
    generation: await readGeneration(memory, id),
    now: () => new Date(now()),
  });
  return {
    context: {
      package: pkg,
      project: options.project ?? "/projects/one",
      handler: `${id}.run`,
      transaction,
      access: new MemoryAccess(id, options.published ?? []),
      orders: [],
      kv,
      now,
      limits: { ...DEFAULT_LIMITS, ...options.limits },
    },
    kv,
    memory,
    async close() {
      kv.close();
      memory.close();
      await Deno.remove(root, { recursive: true });
    },
  };
}
