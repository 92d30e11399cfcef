/**
 * Which of two semver versions is older, by Semantic Versioning 2.0.0's rule
 * of precedence, so that installing an older version over a newer one can be
 * told apart from an update.
 *
 * @module
 */

/**
 * Compares two semver versions by precedence: the numbers of major, minor and
 * patch, then a pre-release below its release (`1.0.0-rc.1` < `1.0.0`), its
 * identifiers compared one by one (numbers as numbers, below words). Build
 * metadata (`+…`) is ignored.
 *
 * @param a A semver version, as a validated manifest holds it.
 * @param b Another.
 * @returns Below 0 when `a` is older, 0 when they rank the same, above 0 when `a` is newer.
 * @example
 * ```ts
 * compareVersions("0.1.0", "1.0.0"); // -1
 * compareVersions("1.0.0-rc.1", "1.0.0"); // -1
 * ```
 */
export function compareVersions(a: string, b: string): number {
  const [coreA, preA] = parts(a);
  const [coreB, preB] = parts(b);
  for (let i = 0; i < 3; i++) {
    const delta = Number(coreA[i] ?? 0) - Number(coreB[i] ?? 0);
    if (delta !== 0) return Math.sign(delta);
  }
  if (preA === undefined || preB === undefined) {
    return preA === preB ? 0 : preA === undefined ? 1 : -1;
  }
  const idsA = preA.split(".");
  const idsB = preB.split(".");
  for (let i = 0; i < Math.max(idsA.length, idsB.length); i++) {
    if (idsA[i] === undefined) return -1;
    if (idsB[i] === undefined) return 1;
    const numA = /^\d+$/.test(idsA[i]);
    const numB = /^\d+$/.test(idsB[i]);
    if (numA && numB) {
      const delta = Number(idsA[i]) - Number(idsB[i]);
      if (delta !== 0) return Math.sign(delta);
    } else if (numA !== numB) {
      return numA ? -1 : 1;
    } else if (idsA[i] !== idsB[i]) {
      return idsA[i] < idsB[i] ? -1 : 1;
    }
  }
  return 0;
}

/** The numbers, and the pre-release after the first `-` (build metadata dropped). */
function parts(version: string): [string[], string | undefined] {
  const plain = version.split("+")[0];
  const dash = plain.indexOf("-");
  const core = dash === -1 ? plain : plain.slice(0, dash);
  return [core.split("."), dash === -1 ? undefined : plain.slice(dash + 1)];
}
