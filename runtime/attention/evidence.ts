/**
 * Evidence as the batch stages see it and as Sync checks it. A source's text
 * — the passages extracted from it, such as a thread's messages — is given to
 * a model as numbered segments of at most 800 characters of the original
 * text, each within one passage (disjoint passages keep their own
 * boundaries). The model cites a segment by a `QuoteRef` (the source, the
 * segment's number and, optionally, the words it quotes); Sync resolves each
 * to an exact quote of the original before a finding is validated, so a
 * model's transcription errors (HTML-derived mail) never become evidence:
 *
 * - an unknown source or segment fails closed;
 * - a quote found as it is in the segment is that span;
 * - a quote that differs from one span of the segment only in whitespace is
 *   restored to that exact span;
 * - a quote matching no span, or more than one, is invalid: translated,
 *   rewritten and ambiguous quotes are not evidence.
 *
 * @module
 */

/** One numbered segment of a source's text. */
export interface EvidenceSegment {
  /** The source's id, such as a record's key. */
  source: string;
  /** Its number within the source, from 1, as the model sees it. */
  segment: number;
  /** The original text, at most `maxChars` characters. */
  text: string;
  /** Which passage of the source it comes from, from 0. */
  passage: number;
  /** Where in that passage it starts, in characters. */
  start: number;
}

/** A model's citation: a segment of a source, and the words it quotes from it. */
export interface QuoteRef {
  /** The source's id. */
  source: string;
  /** The segment's number, as given. */
  segment: number;
  /** The words quoted; the whole segment when absent. */
  quote?: string;
}

/** A citation resolved to an exact quote of the original, or why it is not evidence. */
export type ResolvedQuote =
  | {
    ok: true;
    /** The source's id. */
    source: string;
    /** The segment's number. */
    segment: number;
    /** The exact original text quoted. */
    quote: string;
    /** The quote was restored from one that differed only in whitespace. */
    restored: boolean;
  }
  | {
    ok: false;
    /** Why, in words a repair can use. */
    reason: string;
  };

/** Options of {@linkcode segmentSource}. */
export interface SegmentOptions {
  /** The most characters a segment holds; 800 by default. */
  maxChars?: number;
}

const MAX_CHARS = 800;

/**
 * A source's passages cut into numbered segments of at most `maxChars`
 * characters, each within one passage, cut where a paragraph, then a line,
 * a sentence or a space ends when one does in the segment's second half, and
 * never inside a character written as two (a surrogate pair). The segments
 * of a passage, joined, are the passage exactly. Empty passages give none.
 *
 * @param source The source's id.
 * @param passages Its extracted text, passage by passage.
 * @param options The segments' size.
 */
export function segmentSource(
  source: string,
  passages: readonly string[],
  options: SegmentOptions = {},
): EvidenceSegment[] {
  const max = options.maxChars ?? MAX_CHARS;
  if (!Number.isInteger(max) || max < 2) throw new RangeError(`maxChars is at least 2, got ${max}`);
  const out: EvidenceSegment[] = [];
  passages.forEach((text, passage) => {
    let start = 0;
    while (start < text.length) {
      const end = cutAt(text, start, max);
      out.push({ source, segment: out.length + 1, text: text.slice(start, end), passage, start });
      start = end;
    }
  });
  return out;
}

/** Where the segment starting at `start` ends. */
function cutAt(text: string, start: number, max: number): number {
  let end = Math.min(text.length, start + max);
  if (end === text.length) return end;
  // A character written as two is never split.
  if (isHighSurrogate(text.charCodeAt(end - 1))) end--;
  const window = text.slice(start, end);
  const half = Math.floor(window.length / 2);
  for (const boundary of [/\n\s*\n/g, /\n/g, /[.!?]\s/g, /\s/g]) {
    let last = -1;
    for (const match of window.matchAll(boundary)) {
      const after = match.index + match[0].length;
      if (after >= half && after < window.length) last = after;
    }
    if (last > 0) return start + last;
  }
  return end;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

/**
 * Resolves a model's citation against the segments it was given.
 *
 * @param segments Every segment the batch gave, by source id.
 * @param ref The citation.
 * @returns The exact quote, or why it is not evidence.
 */
export function resolveQuote(
  segments: ReadonlyMap<string, readonly EvidenceSegment[]>,
  ref: QuoteRef,
): ResolvedQuote {
  const ofSource = typeof ref?.source === "string" ? segments.get(ref.source) : undefined;
  if (!ofSource) {
    return { ok: false, reason: `no source ${JSON.stringify(ref?.source)} was given` };
  }
  const given = Number.isInteger(ref.segment) ? ofSource[ref.segment - 1] : undefined;
  if (!given) {
    return {
      ok: false,
      reason: `source ${JSON.stringify(ref.source)} has no segment ${
        JSON.stringify(ref.segment)
      } (it has 1 to ${ofSource.length})`,
    };
  }
  const found = { ok: true as const, source: ref.source, segment: ref.segment };
  if (ref.quote === undefined) return { ...found, quote: given.text, restored: false };
  if (typeof ref.quote !== "string" || ref.quote.trim() === "") {
    return { ok: false, reason: "the quote is empty" };
  }
  const exact = occurrences(given.text, ref.quote);
  if (exact === 1) return { ...found, quote: ref.quote, restored: false };
  if (exact > 1) {
    return {
      ok: false,
      reason: `the quote is found ${exact} times in segment ${ref.segment}; quote more of it`,
    };
  }
  const spans = whitespaceSpans(given.text, ref.quote);
  if (spans.length === 1) {
    const [from, to] = spans[0];
    return { ...found, quote: given.text.slice(from, to), restored: true };
  }
  if (spans.length > 1) {
    return {
      ok: false,
      reason:
        `the quote matches ${spans.length} places of segment ${ref.segment}; quote more of it`,
    };
  }
  return {
    ok: false,
    reason: `the quote is not in segment ${ref.segment} of ${
      JSON.stringify(ref.source)
    }: quote its words as they are, not translated or rewritten`,
  };
}

/** How many times `quote` occurs in `text`, overlapping ones counted. */
function occurrences(text: string, quote: string): number {
  let count = 0;
  for (let at = text.indexOf(quote); at >= 0; at = text.indexOf(quote, at + 1)) count++;
  return count;
}

/**
 * The spans of `text` that equal `quote` once every run of whitespace in both
 * is taken as one and the quote's ends are trimmed: `[from, to)` in `text`,
 * each starting and ending at a character that is not whitespace.
 */
function whitespaceSpans(text: string, quote: string): [number, number][] {
  const words = quote.trim().split(/\s+/);
  const spans: [number, number][] = [];
  for (let from = text.indexOf(words[0]); from >= 0; from = text.indexOf(words[0], from + 1)) {
    let at = from + words[0].length;
    let ok = true;
    for (let w = 1; w < words.length && ok; w++) {
      const space = /^\s+/.exec(text.slice(at, at + 200));
      if (space && text.startsWith(words[w], at + space[0].length)) {
        at += space[0].length + words[w].length;
      } else ok = false;
    }
    if (ok) spans.push([from, at]);
  }
  return spans;
}
