/**
 * The `memory` host functions: read the project's corpus (the package's own
 * kinds and those installed packages publish) and write or remove records
 * under the package's own kind prefix, all inside the call's transaction.
 *
 * @module
 */
import { InvalidInputError } from "../../errors.ts";
import type { RecordInput, RecordQuery } from "../../extension_api/service.ts";
import type { HostFunction } from "../host_function.ts";
import { keyArg } from "./_key_arg.ts";

/** The `memory` host functions, by the name the extension API gives each. */
export const memory: {
  /** `memory.list({ kind?, prefix?, limit?, cursor? })`: a page of records the package may read. */
  readonly list: HostFunction<RecordQuery>;
  /** `memory.record(key)`: a record's summary, or null. */
  readonly record: HostFunction<string>;
  /** `memory.content(key)`: a record's content, or null. */
  readonly content: HostFunction<string>;
  /** `memory.write({ key, … })`: stages a write under the package's prefix. */
  readonly write: HostFunction<RecordInput>;
  /** `memory.remove(key)`: stages a removal under the package's prefix. */
  readonly remove: HostFunction<string>;
} = {
  list: {
    name: "memory.list",
    reach: "reads",
    permission: null,
    parse(args) {
      const query = (args ?? {}) as RecordQuery;
      if (typeof query !== "object" || Array.isArray(query)) {
        throw new InvalidInputError("memory.list() takes { kind?, prefix?, limit?, cursor? }");
      }
      return query;
    },
    async run(query, { access, transaction }) {
      if (query.kind !== undefined) access.assertReadKind(String(query.kind));
      // Without a kind a listing spans every kind: what the package may not read
      // is passed over before the page is counted, so neither the page nor its
      // cursor shows anything of it.
      return await transaction.list(query, { readable: (kind) => access.canRead(kind) });
    },
  },
  record: {
    name: "memory.record",
    reach: "reads",
    permission: null,
    parse: (args) => keyArg("memory.record", args),
    async run(key, { access, transaction }) {
      access.assertReadKey(key);
      return await transaction.record(key);
    },
  },
  content: {
    name: "memory.content",
    reach: "reads",
    permission: null,
    parse: (args) => keyArg("memory.content", args),
    async run(key, { access, transaction }) {
      access.assertReadKey(key);
      return await transaction.content(key);
    },
  },
  write: {
    name: "memory.write",
    reach: "stages",
    permission: null,
    parse(args) {
      const input = args as RecordInput;
      if (!input || typeof input !== "object" || typeof input.key !== "string") {
        throw new InvalidInputError(
          "memory.write() takes { key, title?, fields?, content?, revision? }",
        );
      }
      return input;
    },
    async run(input, { access, transaction }) {
      access.assertWriteKey(input.key);
      return await transaction.write(input);
    },
  },
  remove: {
    name: "memory.remove",
    reach: "stages",
    permission: null,
    parse: (args) => keyArg("memory.remove", args),
    async run(key, { access, transaction }) {
      access.assertWriteKey(key, "remove");
      return await transaction.remove(key);
    },
  },
};
