/**
 * The few path operations the CLI's own path needs, on POSIX paths (the
 * only ones Sync serves: its owner's socket, its folder modes), written
 * here so that `sync help` and a command sent to a serve need no `node:`
 * module: the first import of one sets up Deno's Node layer, which costs a
 * short-lived CLI process several megabytes (a sixth of its memory). They
 * answer what `node:path`'s POSIX functions answer.
 *
 * @module
 */

/**
 * Whether `path` starts at the root.
 *
 * @param path A path.
 */
export function isAbsolute(path: string): boolean {
  return path.startsWith("/");
}

/**
 * The segments joined with `/` and made normal (`.` and `..` taken out, no
 * doubled `/`); `.` when nothing is left.
 *
 * @param segments The parts of the path.
 */
export function join(...segments: string[]): string {
  const joined = segments.filter((segment) => segment !== "").join("/");
  if (joined === "") return ".";
  const absolute = isAbsolute(joined);
  const trailing = joined.endsWith("/");
  const path = normalSegments(joined, !absolute);
  if (path === "") return absolute ? "/" : trailing ? "./" : ".";
  return (absolute ? "/" : "") + path + (trailing ? "/" : "");
}

/**
 * The absolute path `segments` name, taken from the right until one is
 * absolute, else from the current folder; made normal, with no trailing `/`.
 *
 * @param segments The parts of the path.
 */
export function resolve(...segments: string[]): string {
  let path = "";
  for (let i = segments.length - 1; i >= 0 && !isAbsolute(path); i--) {
    if (segments[i] === "") continue;
    path = path === "" ? segments[i] : `${segments[i]}/${path}`;
  }
  if (!isAbsolute(path)) path = path === "" ? Deno.cwd() : `${Deno.cwd()}/${path}`;
  return `/${normalSegments(path, false)}`;
}

/**
 * The folder that holds `path`: all but its last segment (`/` for the root
 * or a file in it, `.` for a bare name).
 *
 * @param path A path.
 */
export function dirname(path: string): string {
  if (path === "") return ".";
  const rooted = path.startsWith("/");
  let end = -1;
  let slashesOnly = true;
  for (let i = path.length - 1; i >= 1; i--) {
    if (path[i] === "/") {
      if (!slashesOnly) {
        end = i;
        break;
      }
    } else slashesOnly = false;
  }
  if (end === -1) return rooted ? "/" : ".";
  if (rooted && end === 1) return "//";
  return path.slice(0, end);
}

/**
 * Whether `path` is the root of the file system.
 *
 * @param path An absolute path, as the system answers it.
 */
export function isRoot(path: string): boolean {
  return path === "/";
}

/**
 * The segments of `path` with `.`, `..` and empty ones taken out, joined by
 * `/`; a `..` past the start is kept when `aboveStart` allows it.
 */
function normalSegments(path: string, aboveStart: boolean): string {
  const parts: string[] = [];
  for (const segment of path.split("/")) {
    if (segment === "" || segment === ".") continue;
    if (segment === "..") {
      if (parts.length > 0 && parts[parts.length - 1] !== "..") parts.pop();
      else if (aboveStart) parts.push("..");
      continue;
    }
    parts.push(segment);
  }
  return parts.join("/");
}
