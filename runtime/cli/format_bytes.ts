/**
 * Sizes as the author commands print them.
 *
 * @module
 */

/**
 * A size in bytes for a person: `812 B`, `2.1 KiB`, `1.4 MiB`.
 *
 * @param bytes The size.
 */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}
