/**
 * How far `API_VERSION` must move between two shapes of
 * `@sync/extension-api/*`, by the rule in `docs/authors.md` ("The API's
 * version"): a package built against the old shape must still type-check
 * against the new one for a minor step; anything the report cannot show to be
 * safe is a major step.
 *
 * @module
 */
import { type ApiMember, type ApiShape, type ApiSymbol, compareText } from "./api_shape.ts";

/** How far the version must move. */
export type ApiBump = "none" | "minor" | "major";

/** What changed between two shapes, and the step that asks for. */
export interface ApiComparison {
  /** The largest step any change asks for. */
  bump: ApiBump;
  /** One line per change, such as `major: removed memory from @sync/extension-api/service`. */
  changes: string[];
}

/**
 * Compares the shape a report recorded with the shape the API has now.
 * Removed → major. Added export → minor. Changed export or member text →
 * major. Added member: optional → minor; required → minor when only the host
 * makes the interface's values, major when the author makes them (their
 * code lacks the member).
 */
export function compareApiShapes(before: ApiShape, after: ApiShape): ApiComparison {
  const changes: string[] = [];
  const modules = new Set([...before.modules, ...after.modules].map((m) => m.specifier));
  for (const specifier of [...modules].sort(compareText)) {
    const old = groupByName(before.modules.find((m) => m.specifier === specifier)?.symbols);
    const now = groupByName(after.modules.find((m) => m.specifier === specifier)?.symbols);
    const names = [...new Set([...old.keys(), ...now.keys()])].sort(compareText);
    for (const name of names) {
      const was = old.get(name);
      const is = now.get(name);
      const where = `${name} of ${specifier}`;
      if (!is) changes.push(`major: removed ${where}`);
      else if (!was) changes.push(`minor: added ${where}`);
      else if (headers(was) !== headers(is)) {
        changes.push(`major: changed ${where}: ${headers(was)} → ${headers(is)}`);
      } else {
        const role = is.find((symbol) => symbol.role)?.role ?? "author";
        changes.push(...compareMembers(was, is, role, where));
      }
    }
  }
  const bump: ApiBump = changes.some((c) => c.startsWith("major:"))
    ? "major"
    : changes.length > 0
    ? "minor"
    : "none";
  return { bump, changes };
}

/** The changes among the members of one export. */
function compareMembers(
  was: ApiSymbol[],
  is: ApiSymbol[],
  role: string,
  where: string,
): string[] {
  const changes: string[] = [];
  const old = membersByKey(was);
  const now = membersByKey(is);
  for (const key of [...new Set([...old.keys(), ...now.keys()])].sort(compareText)) {
    const before = old.get(key);
    const after = now.get(key);
    if (!after) changes.push(`major: removed ${key} from ${where}`);
    else if (!before) {
      const optional = after.every((m) => m.optional);
      const breaking = !optional && role !== "host";
      changes.push(
        `${breaking ? "major" : "minor"}: added ${optional ? "optional" : "required"} ${key} ` +
          `to ${where}${breaking ? `, whose values the author makes` : ""}`,
      );
    } else if (texts(before) !== texts(after)) {
      changes.push(`major: changed ${key} of ${where}: ${texts(before)} → ${texts(after)}`);
    }
  }
  return changes;
}

/**
 * The version that follows `version` by `bump`: `1.1.0` → `1.2.0` for minor,
 * `2.0.0` for major, itself for none.
 */
export function nextApiVersion(version: string, bump: ApiBump): string {
  const match = /^(\d+)\.(\d+)\.(\d+)$/.exec(version);
  if (!match) throw new Error(`API_VERSION ${version} is not major.minor.patch`);
  const [major, minor] = [Number(match[1]), Number(match[2])];
  if (bump === "major") return `${major + 1}.0.0`;
  if (bump === "minor") return `${major}.${minor + 1}.0`;
  return version;
}

/**
 * Why `after.version` is not the version the changes from `before` ask for,
 * or `null` when it is.
 */
export function apiVersionProblem(before: ApiShape, after: ApiShape): string | null {
  const { bump, changes } = compareApiShapes(before, after);
  const wanted = nextApiVersion(before.version, bump);
  if (after.version === wanted) return null;
  const why = bump === "none"
    ? "the shape did not change, so the version stays"
    : bump === "minor"
    ? "the shape only grew, a minor step"
    : "something was removed or changed, a major step";
  return `API_VERSION is ${after.version} and must be ${wanted}: the report was made for ` +
    `${before.version} and ${why}${changes.length > 0 ? `:\n  ${changes.join("\n  ")}` : ""}`;
}

function groupByName(symbols: ApiSymbol[] | undefined): Map<string, ApiSymbol[]> {
  const groups = new Map<string, ApiSymbol[]>();
  for (const symbol of symbols ?? []) {
    groups.set(symbol.name, [...(groups.get(symbol.name) ?? []), symbol]);
  }
  return groups;
}

function membersByKey(symbols: ApiSymbol[]): Map<string, ApiMember[]> {
  const groups = new Map<string, ApiMember[]>();
  for (const member of symbols.flatMap((symbol) => symbol.members)) {
    groups.set(member.key, [...(groups.get(member.key) ?? []), member]);
  }
  return groups;
}

function headers(symbols: ApiSymbol[]): string {
  return symbols.map((symbol) => symbol.text).join(" ; ");
}

function texts(members: ApiMember[]): string {
  return members.map((member) => member.text).join(" ; ");
}
