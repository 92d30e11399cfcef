/**
 * What an install says once done, in one set of words for `sync install` and
 * the web app's `POST /api/install`.
 *
 * @module
 */
import type { InstallResult } from "./install.ts";

/**
 * The lines an install prints: what was installed from where into which
 * project, what was approved, and its `installed` handler.
 *
 * @param result What the install did.
 * @returns One line each, for a terminal or a page (the caller escapes them where it prints).
 */
export function installReport(result: InstallResult): string[] {
  const { manifest, ref } = result.package;
  const lines = [
    `Installed ${manifest.id}@${manifest.version} (${ref.source}: ${ref.dir}) into ${result.project}`,
  ];
  if (result.approved.length) lines.push(`Approved: ${result.approved.join(", ")}`);
  if (result.installed) lines.push(`Ran its installed handler ${result.installed.handler}: ok`);
  return lines;
}
