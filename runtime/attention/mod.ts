/**
 * The attention pipeline: what applets read turned into a short list of
 * items that need the person, each with evidence. So far: evidence as the
 * batch stages see it (numbered segments) and as Sync checks it (quotes
 * resolved to the exact original), and an extraction batch's answer checked
 * finding by finding.
 *
 * @module
 */
export { resolveQuote, segmentSource } from "./evidence.ts";
export type { EvidenceSegment, QuoteRef, ResolvedQuote, SegmentOptions } from "./evidence.ts";
export {
  acknowledgedInputs,
  CANDIDATE_LIMITS,
  checkExtraction,
  EXTRACTION_SCHEMA,
  repairMessage,
} from "./extraction_answer.ts";
export type {
  BatchInput,
  Candidate,
  CheckedExtraction,
  FindingKind,
  Quote,
  Rejection,
} from "./extraction_answer.ts";
