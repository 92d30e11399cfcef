/**
 * What a call runs in: the QuickJS runtime kept from call to call with the
 * encoder's context in it, and the fresh context each call is given, with
 * what the worker takes from a context before package code can reach it.
 *
 * Private to `workers/`: its exports are marked `@ignore` for `deno doc`,
 * since they speak of QuickJS's own types, which no public entry names.
 *
 * @module
 */
import type {
  QuickJSContext,
  QuickJSHandle,
  QuickJSRuntime,
  QuickJSWASMModule,
} from "quickjs-emscripten-core";
import { BINDING_GLOBAL, ENCODER_SOURCE, SERVICE_MODULE_SOURCE } from "./_service_shim.ts";
import {
  CONSOLE_LEVELS,
  type ConsoleLevel,
  SERVICE_API_SPECIFIER,
} from "../runtime/isolate/protocol.ts";

/**
 * What a runtime's module loader is: a module's name in, its source (or why not) out.
 *
 * @ignore
 */
export type ModuleLoader = Parameters<QuickJSRuntime["setModuleLoader"]>[0];

/**
 * The call a fresh context serves: its binding and console speak to it.
 *
 * @ignore
 */
export interface ContextCall {
  /** A call of the binding: a host function, by name, with its argument. */
  onBinding(name: QuickJSHandle, args: QuickJSHandle): QuickJSHandle;
  /** A console line at `level`, with the arguments as handed to the console method. */
  onConsole(level: ConsoleLevel, args: QuickJSHandle[]): QuickJSHandle | { error: QuickJSHandle };
}

/**
 * The QuickJS runtime calls' contexts are made in, and the encoder living in
 * a context of its own within it (`ENCODER_SOURCE`), parsed once per runtime
 * rather than once per call.
 *
 * @ignore
 */
export interface Engine {
  /** The runtime; calls' contexts are made in it. */
  runtime: QuickJSRuntime;
  /** The encoder's own context, which package code never reaches. */
  encoder: QuickJSContext;
  /** `encode(value, label, objectPrototype)`: JSON text, or `REFUSED_MARK` and why. */
  encode: QuickJSHandle;
  /** `format(args)`: a console line. */
  format: QuickJSHandle;
  /** `ownValue(object, name)`: the value of an own data property, never an inherited one. */
  ownValue: QuickJSHandle;
  /** `describe(object, objectPrototype)`: what `register()` returned, as JSON text. */
  describe: QuickJSHandle;
}

/**
 * A context no call has run in, with what the worker takes from it before
 * package code can replace anything: its own `JSON.parse`, `Object.prototype`
 * and `TypeError`, and its `console` and binding, native functions that speak
 * to whichever call the context is given to.
 *
 * @ignore
 */
export interface FreshContext {
  /** The context. */
  vm: QuickJSContext;
  /** Its own `JSON.parse`. */
  parse: QuickJSHandle;
  /** Its own `Object.prototype`: what a plain object of the context has. */
  objectProto: QuickJSHandle;
  /** Its own `TypeError`. */
  typeError: QuickJSHandle;
  /** The native function the service module takes host calls through. */
  binding: QuickJSHandle;
  /** The call the context serves, once it is given one. */
  session?: ContextCall;
  /** The service module was evaluated in it before a call was given it ({@linkcode loadServiceModule}). */
  serviceLoaded?: boolean;
}

/**
 * A runtime with the encoder evaluated in it, ready for calls' contexts.
 *
 * @ignore
 * @param module The QuickJS instance the runtime lives in.
 * @param loadModule What the runtime's module loader answers: the running
 *   call decides what its module may import.
 */
export function newEngine(module: QuickJSWASMModule, loadModule: ModuleLoader): Engine {
  const runtime = module.newRuntime();
  runtime.setModuleLoader(loadModule);
  const encoder = runtime.newContext();
  const internals = encoder.unwrapResult(encoder.evalCode(ENCODER_SOURCE, "sync:encoder"));
  const encode = encoder.getProp(internals, "encode");
  const format = encoder.getProp(internals, "format");
  const ownValue = encoder.getProp(internals, "ownValue");
  const describe = encoder.getProp(internals, "describe");
  internals.dispose();
  return { runtime, encoder, encode, format, ownValue, describe };
}

/**
 * Makes a fresh context in `runtime`: the language's built-ins but for
 * `FinalizationRegistry`, and `console` (frozen native functions, as the
 * binding is). Nothing else is evaluated in it, but the line that deletes
 * `FinalizationRegistry`, until a call's module is.
 *
 * @ignore
 */
export function freshContext(runtime: QuickJSRuntime): FreshContext {
  const vm = runtime.newContext();
  const held: QuickJSHandle[] = [];
  const take = (handle: QuickJSHandle) => {
    held.push(handle);
    return handle;
  };
  try {
    const json = take(vm.getProp(vm.global, "JSON"));
    const object = take(vm.getProp(vm.global, "Object"));
    // A context lingers in its runtime until the collector frees it, and a
    // finalizer it registered would then run inside whichever call is
    // running: a call cannot be given one. (Evaluated, this costs a tenth
    // of what reaching `Reflect.deleteProperty` through handles does.)
    take(vm.unwrapResult(vm.evalCode("delete globalThis.FinalizationRegistry", "sync:context")));
    const freeze = take(vm.getProp(object, "freeze"));
    const fresh = {
      vm,
      parse: vm.getProp(json, "parse"),
      objectProto: vm.getProp(object, "prototype"),
      typeError: vm.getProp(vm.global, "TypeError"),
    } as FreshContext;
    fresh.binding = vm.newFunction(
      "binding",
      (name, args) => fresh.session?.onBinding(name, args) ?? vm.undefined,
    );
    const console = take(vm.newObject());
    for (const level of CONSOLE_LEVELS) {
      const method = take(vm.newFunction(
        level,
        (...args) => fresh.session?.onConsole(level, args) ?? vm.undefined,
      ));
      take(vm.unwrapResult(vm.callFunction(freeze, vm.undefined, method)));
      vm.setProp(console, level, method);
    }
    take(vm.unwrapResult(vm.callFunction(freeze, vm.undefined, console)));
    vm.setProp(vm.global, "console", console);
    return fresh;
  } catch (error) {
    vm.dispose();
    throw error;
  } finally {
    for (const handle of held) if (handle.alive) handle.dispose();
  }
}

/**
 * Frees a context and what the worker holds of it.
 *
 * @ignore
 */
export function disposeFresh(fresh: FreshContext): void {
  fresh.session = undefined;
  for (const handle of [fresh.parse, fresh.objectProto, fresh.typeError, fresh.binding]) {
    if (handle.alive) handle.dispose();
  }
  fresh.vm.dispose();
}

/**
 * What the module loader answers for `name` in `fresh`: the service module,
 * with the binding set on the global object for the module's first
 * statements to take off again, or the refusal of any other name (and of the
 * service module once the binding is gone).
 *
 * @ignore
 */
export function serviceModule(
  fresh: FreshContext,
  name: string,
): { value: string } | { error: Error } {
  if (name !== SERVICE_API_SPECIFIER || !fresh.binding.alive) {
    return {
      error: new Error(
        `Cannot import "${name}": a service module may import only "${SERVICE_API_SPECIFIER}"` +
          ` (bundle everything else into the module)`,
      ),
    };
  }
  fresh.vm.setProp(fresh.vm.global, BINDING_GLOBAL, fresh.binding);
  return { value: SERVICE_MODULE_SOURCE };
}

/**
 * Evaluates the service module in a fresh context no call has been given
 * yet, as a call's first import of it would: the context keeps the module,
 * so a call whose module imports it finds it there rather than evaluating it
 * while the call waits. Nothing of a call's code has run in the context, so
 * the module takes the binding off the global object before any can look,
 * as it does when a call imports it. The runtime's loader must answer
 * {@linkcode serviceModule} for `fresh` meanwhile.
 *
 * @ignore
 * @throws {Error} when the module did not load; the context is then not to be used.
 */
export function loadServiceModule(fresh: FreshContext): void {
  const vm = fresh.vm;
  const promise = vm.unwrapResult(
    vm.evalCode(`import ${JSON.stringify(SERVICE_API_SPECIFIER)};`, "sync:service", {
      type: "module",
    }),
  );
  try {
    const jobs = vm.runtime.executePendingJobs();
    if (jobs.error) {
      jobs.error.dispose();
      throw new Error("the service module threw as it loaded");
    }
    const state = vm.getPromiseState(promise);
    if (state.type === "fulfilled") {
      if (!state.notAPromise) state.value.dispose();
    } else {
      if (state.type === "rejected") state.error.dispose();
      throw new Error("the service module did not load");
    }
  } finally {
    if (promise.alive) promise.dispose();
  }
  fresh.serviceLoaded = true;
}
