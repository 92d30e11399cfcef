/**
 * Reading a package's own files. A package is a folder Sync reads from but
 * does not control (a linked folder is being written right now), so every
 * file it names is read only when it is a regular file that, once links are
 * followed, is still inside the package, and only up to a size: a link to
 * `/etc/passwd`, a FIFO that never answers or `/dev/zero` named as a
 * manifest is refused with its reason rather than read.
 *
 * @module
 */
import { InvalidInputError } from "../errors.ts";
import { PACKAGE_FILE_LIMITS } from "../limits.ts";
import { readFileAtMost } from "../internal/read_file_at_most.ts";
import { fileKind, pathInside } from "../internal/path_inside.ts";

/**
 * The real path of the file `path` names in the package folder `dir`, once it
 * is known to be a regular file inside the package.
 *
 * @param dir The package's folder.
 * @param path The file, relative to the package, as the manifest names it.
 * @returns The file's real path.
 * @throws {Deno.errors.NotFound} when there is no such file.
 * @throws {InvalidInputError} when it leads outside the package or is not a regular file.
 */
export async function packageFile(dir: string, path: string): Promise<string> {
  const { real, inside } = await pathInside(dir, path);
  if (inside === null || inside === "") {
    throw new InvalidInputError(
      `Cannot read "${path}" of the package in ${dir}: it leads outside the package (to ${real}); ` +
        `a package's files are its own`,
    );
  }
  const info = await Deno.stat(real);
  if (!info.isFile) {
    throw new InvalidInputError(
      `Cannot read "${path}" of the package in ${dir}: it is ${fileKind(info)}, not a regular file`,
    );
  }
  return real;
}

/**
 * Reads a file of a package as UTF-8 text: a regular file inside the package
 * (see {@linkcode packageFile}) of at most `maxBytes`, read without taking in
 * more than that even if it grows meanwhile.
 *
 * @param dir The package's folder.
 * @param path The file, relative to the package.
 * @param maxBytes The most it may hold; {@linkcode PACKAGE_FILE_LIMITS} `maxFileBytes` when absent.
 * @returns Its text.
 * @throws {Deno.errors.NotFound} when there is no such file.
 * @throws {InvalidInputError} when it leads outside the package, is not a regular file, or is too large.
 */
export async function readPackageText(
  dir: string,
  path: string,
  maxBytes: number = PACKAGE_FILE_LIMITS.maxFileBytes,
): Promise<string> {
  const bytes = await readFileAtMost(await packageFile(dir, path), maxBytes);
  if (bytes === null) {
    throw new InvalidInputError(
      `Cannot read "${path}" of the package in ${dir}: it is larger than ${maxBytes} bytes, ` +
        `the most Sync reads of such a file`,
    );
  }
  return new TextDecoder().decode(bytes);
}
