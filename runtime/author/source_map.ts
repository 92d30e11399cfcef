/**
 * Reading a bundler's source map (version 3) back: which source file, line
 * and column a place in the built module came from.
 *
 * @module
 */

/** A source map as a build hands it on: `sources` relative to the package folder. */
export interface SourceMap {
  /** The source files, relative to the package folder, such as `src/service.ts`. */
  sources: string[];
  /** The encoded mappings (Base64 VLQ segments, `;` between generated lines). */
  mappings: string;
}

/** A place in a source; lines and columns from 1. */
export interface SourcePlace {
  /** The source file as the map's `sources` names it, relative to the package folder. */
  file: string;
  /** The line, from 1. */
  line: number;
  /** The column, from 1. */
  column: number;
}

const BASE64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/**
 * Where the built module's `line` and `column` (from 1) came from: the
 * mapping segment at or before the column on that line.
 *
 * @returns The source place, or undefined when the map says nothing there.
 * @example
 * ```ts
 * originalPlace(map, 6, 14); // { file: "src/util.ts", line: 2, column: 14 }
 * ```
 */
export function originalPlace(
  map: SourceMap,
  line: number,
  column: number,
): SourcePlace | undefined {
  const lines = map.mappings.split(";");
  // Source index, original line and column carry over from one line to the next.
  let source = 0;
  let sourceLine = 0;
  let sourceColumn = 0;
  for (let i = 0; i < lines.length && i < line; i++) {
    let generated = 0;
    let best: SourcePlace | undefined;
    for (const segment of lines[i].split(",")) {
      if (segment === "") continue;
      const fields = decodeVlq(segment);
      generated += fields[0];
      if (fields.length < 4) continue;
      source += fields[1];
      sourceLine += fields[2];
      sourceColumn += fields[3];
      if (i === line - 1 && generated <= column - 1 && map.sources[source] !== undefined) {
        best = { file: map.sources[source], line: sourceLine + 1, column: sourceColumn + 1 };
      }
    }
    if (i === line - 1) return best;
  }
  return undefined;
}

/** The numbers one mapping segment holds. */
function decodeVlq(segment: string): number[] {
  const values: number[] = [];
  let value = 0;
  let shift = 0;
  for (const char of segment) {
    const digit = BASE64.indexOf(char);
    if (digit < 0) return values;
    value += (digit & 31) << shift;
    if (digit & 32) {
      shift += 5;
      continue;
    }
    values.push(value & 1 ? -(value >>> 1) : value >>> 1);
    value = 0;
    shift = 0;
  }
  return values;
}
