/**
 * What a handler call (or the check's stand-in host) hands the isolate pool
 * for host calls: each name looked up in the table and run with its
 * permission and argument checks, and the longest answer each may cross back
 * as.
 *
 * @module
 */
import type { CallHooks } from "../isolate/mod.ts";
import { findHostFunction } from "./function_table.ts";
import { type HostFunctionContext, runHostFunction } from "./host_function.ts";

/**
 * The pool's host hooks for one call.
 *
 * @param context The call the functions run in; its limits bound their answers. Each host
 *   call also gets the signal that aborts when the handler call ends.
 */
export function hostDispatch(
  context: HostFunctionContext,
): Pick<CallHooks, "host" | "answerLimit"> {
  return {
    host: (fn, args, signal) => {
      const run = () => runHostFunction(findHostFunction(fn), args, { ...context, signal });
      const held = context.background?.wait();
      return held ? held.then(run) : run();
    },
    answerLimit: (fn) => findHostFunction(fn).maxAnswerBytes?.(context.limits),
  };
}
