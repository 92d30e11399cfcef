/**
 * The environment a supervised process starts with.
 *
 * @module
 */

/**
 * The environment for a child: `base` without Sync's own variables, then
 * the entries asked for.
 *
 * Every `SYNC_*` variable is removed, since they configure this Sync (its
 * installation, its port) and a program Sync starts is not Sync; so is every
 * variable whose value is one of `secrets`, whatever its name, since the
 * installation's token lets whoever holds it do anything the person may.
 * `extra` is applied last: a string sets a variable, `null` removes it. A
 * variable `extra` sets is passed on even when named `SYNC_*`, because the
 * caller asked for it by name.
 *
 * @param base The environment Sync itself runs with.
 * @param secrets Values no child may see, such as the installation's token.
 * @param extra Variables to set (a string) or remove (`null`).
 */
export function childEnvironment(
  base: Readonly<Record<string, string>>,
  secrets: readonly string[],
  extra: Readonly<Record<string, string | null>> = {},
): Record<string, string> {
  const hidden = new Set(secrets.filter((secret) => secret.length > 0));
  // A Map, made an object by defining each name: a variable named
  // `__proto__` is set like any other.
  const env = new Map<string, string>();
  for (const [name, value] of Object.entries(base)) {
    if (name.startsWith("SYNC_") || hidden.has(value)) continue;
    env.set(name, value);
  }
  for (const [name, value] of Object.entries(extra)) {
    if (value === null) env.delete(name);
    else env.set(name, value);
  }
  return Object.fromEntries(env);
}
