/**
 * What removing a package from a project keeps and what it takes, in the
 * words the confirmation and the answer use. The list follows what
 * `removePackage` does; a change there is a change here. Only what applies
 * to the package is said: no clock line for a package that schedules
 * nothing, no programs line for one that declares none.
 *
 * @module
 */
import type { Manifest } from "../packages/mod.ts";

/** What removing a package keeps and takes. */
export interface Removal {
  /** What stays, one sentence each. */
  stays: string[];
  /** What goes, one sentence each. */
  goes: string[];
}

/**
 * What removing is said from: the id, and when the version serving can be
 * read, its manifest. Without one, only what holds of every package is said.
 */
export type RemovalManifest =
  & Pick<Manifest, "id">
  & Partial<
    Pick<Manifest, "lifecycle" | "handlers" | "schedule" | "permissions" | "ui" | "host" | "prompt">
  >;

/** Options for {@linkcode removalOf}. */
export interface RemovalOptions {
  /** Its `removed` handler runs (or ran); false when it could not. True by default. */
  removedRuns?: boolean;
  /** Whether any version of it is on this machine; true by default. */
  onMachine?: boolean;
}

/**
 * What removing a package from a project keeps and takes.
 *
 * @param manifest The manifest of the version serving (`{ id }` alone when it cannot be read).
 * @param options Whether its `removed` handler runs.
 */
export function removalOf(manifest: RemovalManifest, options: RemovalOptions = {}): Removal {
  const removed = options.removedRuns === false ? undefined : manifest.lifecycle?.removed;
  const handlers = Object.keys(manifest.handlers ?? {});
  const scheduled = (manifest.schedule ?? []).length > 0;
  const programs = manifest.host?.processes ?? [];
  const tools = Object.entries(manifest.handlers ?? {})
    .filter(([, handler]) => handler.agent !== undefined)
    .map(([name]) => name)
    .sort();
  const permissions = manifest.permissions ?? [];
  const stays: string[] = [];
  const goes: string[] = [];
  if (handlers.length > 0) {
    stays.push(
      "Its records stay in this project's memory; installing it again finds them.",
      "Its receipts stay.",
    );
  } else if (manifest.handlers === undefined) {
    // Its manifest cannot be read: whatever it wrote stays all the same.
    stays.push(
      "Whatever records it wrote stay in this project's memory; installing it again finds them.",
      "Its receipts stay.",
    );
  }
  if (options.onMachine !== false) {
    stays.push("The package stays on this machine for the other projects that use it.");
  }
  if (removed) {
    goes.push(
      `Its removed handler ${removed} runs first; if it fails, nothing is removed ` +
        "unless you remove it anyway.",
    );
  }
  goes.push(`${manifest.id} leaves this project's .sync/extensions.json.`);
  if (permissions.length > 0) {
    goes.push(
      `This project's approval of what it may do (${permissions.join(", ")}); ` +
        "installing it again asks again.",
    );
  } else if (manifest.permissions === undefined) goes.push("This project's approval of it.");
  if (scheduled) {
    goes.push(
      "Its schedule here: when its handlers last ran, their failures, and its Off switch.",
    );
  }
  if (permissions.includes("account.folder") || permissions.includes("account.remote")) {
    // A folder account has no credential: naming one would have a person look for a password.
    const account = permissions.includes("account.remote")
      ? "Its device's account here, with its credential"
      : "Its device's account here (the folder it reads)";
    goes.push(
      `${account}, the consent to process what it reads, and its tasks' runs; ` +
        "what it read stays in this project's memory.",
    );
  }
  if (manifest.ui) goes.push("Its screen leaves this project's window.");
  if (programs.length > 0) {
    goes.push(
      programs.length === 1
        ? `The program its screen started here (${programs[0].id}) is stopped, if it runs.`
        : `The programs its screen started here (${
          programs.map((p) => p.id).join(", ")
        }) are stopped, if they run.`,
    );
  }
  const offered = [
    ...(tools.length > 0 ? [`${tools.length === 1 ? "tool" : "tools"} ${tools.join(", ")}`] : []),
    ...(manifest.prompt ? ["instructions"] : []),
  ];
  if (offered.length > 0) {
    goes.push(`Agents working in this project no longer see its ${offered.join(" or its ")}.`);
  }
  if (handlers.length > 0) {
    goes.push("If one of its handlers is running now, what it writes is thrown away.");
  }
  return { stays, goes };
}
