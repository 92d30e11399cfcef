/**
 * The QuickJS floor, in-process: a fresh runtime and context, the service
 * module evaluated, `register()` and one handler called, its value read
 * back, and everything disposed. What the pool does per call, without the
 * worker hop, the bootstrap or any host function.
 *
 * @module
 */
import {
  newQuickJSWASMModuleFromVariant,
  type QuickJSContext,
  type QuickJSHandle,
  type QuickJSWASMModule,
} from "quickjs-emscripten-core";
import variant from "@jitl/quickjs-singlefile-mjs-release-sync";

/** Loads QuickJS in this process once, for {@linkcode quickJSOneShot}. */
export function loadQuickJSInProcess(): Promise<QuickJSWASMModule> {
  return newQuickJSWASMModuleFromVariant(variant);
}

/** Settles `handle` if it is a promise (running pending jobs), and returns its value. */
function settled(vm: QuickJSContext, handle: QuickJSHandle): QuickJSHandle {
  vm.runtime.executePendingJobs();
  const state = vm.getPromiseState(handle);
  if (state.type === "fulfilled") {
    if (!state.notAPromise) handle.dispose();
    return state.value;
  }
  if (state.type === "rejected") {
    const reason = vm.dump(state.error);
    state.error.dispose();
    throw new Error(`QuickJS one-shot: rejected: ${JSON.stringify(reason)}`);
  }
  throw new Error("QuickJS one-shot: a promise is still pending");
}

/**
 * Runs `handler` of the module `source` once in a fresh QuickJS runtime and
 * context, and returns the handler's value.
 */
export function quickJSOneShot(
  quickjs: QuickJSWASMModule,
  source: string,
  handler: string,
  payload: unknown,
): unknown {
  const runtime = quickjs.newRuntime();
  const vm = runtime.newContext();
  try {
    const namespace = settled(
      vm,
      vm.unwrapResult(vm.evalCode(source, "one-shot/service/index.js", { type: "module" })),
    );
    const register = vm.getProp(namespace, "default");
    const handlers = settled(vm, vm.unwrapResult(vm.callFunction(register, vm.undefined)));
    const fn = vm.getProp(handlers, handler);
    const argument = vm.unwrapResult(vm.evalCode(`(${JSON.stringify(payload)})`));
    const value = settled(vm, vm.unwrapResult(vm.callFunction(fn, vm.undefined, argument)));
    const answer = vm.dump(value);
    for (const handle of [namespace, register, handlers, fn, argument, value]) handle.dispose();
    return answer;
  } finally {
    vm.dispose();
    runtime.dispose();
  }
}
