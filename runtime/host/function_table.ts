/**
 * The table of host functions: every capability handler code can reach, one
 * entry each, in the order of `HOST_FUNCTIONS`. A new surface is a file
 * under `functions/` and an entry here.
 *
 * @module
 */
import { InvalidInputError } from "../errors.ts";
import type { HostFunctionName } from "../isolate/mod.ts";
import type { HostFunction } from "./host_function.ts";
import { account } from "./functions/account.ts";
import { memory } from "./functions/memory.ts";
import { net } from "./functions/net.ts";
import { work } from "./functions/work.ts";

/** Every host function, in the order of `HOST_FUNCTIONS`. */
export const HOST_FUNCTION_TABLE: readonly HostFunction[] = Object.freeze([
  memory.list,
  memory.record,
  memory.content,
  memory.write,
  memory.remove,
  work.order,
  work.state,
  net.fetch,
  account.list,
  account.read,
  account.parseMail,
  account.parseCalendar,
  account.fetch,
]);

const BY_NAME: ReadonlyMap<string, HostFunction> = new Map(
  HOST_FUNCTION_TABLE.map((fn) => [fn.name, fn]),
);

/**
 * The host function handler code called by `name`.
 *
 * @throws {InvalidInputError} for a name the table does not hold (the isolate refuses those first).
 */
export function findHostFunction(name: HostFunctionName): HostFunction {
  const fn = BY_NAME.get(name);
  if (!fn) throw new InvalidInputError(`${name} is not a function the host offers`);
  return fn;
}
