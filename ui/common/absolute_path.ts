/**
 * Whether a path a person typed is absolute, checked in the page before it is
 * sent: the app has no working folder a relative path could mean.
 *
 * @module
 */

/** Whether `path` is absolute, on this machine or on Windows. */
export function isAbsolutePath(path: string): boolean {
  return path.startsWith("/") || /^[A-Za-z]:[\\/]/.test(path) || path.startsWith("\\\\");
}
