/**
 * The attention pipeline: what applets read turned into a short list of
 * items that need the person, each with evidence. So far: evidence as the
 * batch stages see it (numbered segments) and as Sync checks it (quotes
 * resolved to the exact original).
 *
 * @module
 */
export { resolveQuote, segmentSource } from "./evidence.ts";
export type { EvidenceSegment, QuoteRef, ResolvedQuote, SegmentOptions } from "./evidence.ts";
