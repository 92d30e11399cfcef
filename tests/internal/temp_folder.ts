/**
 * Temporary folders a test file removes when it ends, for helpers that make
 * one per step and hand it on: the folders go with the test process
 * (`unload`), whether the steps passed or failed.
 *
 * @module
 */

const made: string[] = [];

globalThis.addEventListener("unload", () => {
  for (const folder of made) {
    try {
      Deno.removeSync(folder, { recursive: true });
    } catch { /* already gone */ }
  }
});

/**
 * Makes a temporary folder removed when the test process ends.
 *
 * @param prefix The start of its name, such as `sync-sweep-`.
 * @returns Its path.
 */
export async function tempFolder(prefix: string): Promise<string> {
  const folder = await Deno.makeTempDir({ prefix });
  made.push(folder);
  return folder;
}
