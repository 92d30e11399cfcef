/**
 * Compiles QuickJS's WebAssembly once, in the host, so every isolate worker
 * instantiates the same `WebAssembly.Module` instead of compiling 1 MB of
 * Wasm again.
 *
 * @module
 */
import type { QuickJSSyncVariant } from "quickjs-emscripten-core";
import wasmfile from "@jitl/quickjs-wasmfile-release-sync";

// The package's types describe its CommonJS entry; its ES entry, the one
// loaded here, has the variant as its default export.
const variant = wasmfile as unknown as QuickJSSyncVariant;

let compiled: Promise<WebAssembly.Module> | undefined;

/**
 * Returns the compiled QuickJS module, compiling it on first use.
 *
 * The variant loads its Wasm file and hands the bytes only to
 * `WebAssembly.instantiate`, so the module is taken from that call's result
 * while the loader runs once. Workers then start from it via `newVariant`.
 */
export function quickJSWasmModule(): Promise<WebAssembly.Module> {
  compiled ??= captureModule();
  return compiled;
}

async function captureModule(): Promise<WebAssembly.Module> {
  const original = WebAssembly.instantiate;
  let module: WebAssembly.Module | undefined;
  const capturing = async (
    source: BufferSource | WebAssembly.Module,
    imports?: WebAssembly.Imports,
  ) => {
    // deno-lint-ignore no-explicit-any
    const result: any = await (original as any)(source, imports);
    if (result?.module instanceof WebAssembly.Module) module = result.module;
    return result;
  };
  // deno-lint-ignore no-explicit-any
  (WebAssembly as any).instantiate = capturing;
  try {
    const loaded = await variant.importModuleLoader();
    // deno-lint-ignore no-explicit-any
    const factory = ((loaded as any).default ?? loaded) as () => Promise<unknown>;
    await factory();
  } finally {
    // deno-lint-ignore no-explicit-any
    (WebAssembly as any).instantiate = original;
  }
  if (!module) throw new Error("QuickJS did not load: its WebAssembly module was not seen");
  return module;
}
