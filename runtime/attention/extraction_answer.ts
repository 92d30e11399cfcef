/**
 * What an extraction batch's model answered, checked finding by finding. A
 * batch is not all-or-nothing: each finding is validated on its own — its
 * kind, its bounded title and reason, an event's explicit start time, and
 * every citation resolved to an exact quote of the sources the batch gave —
 * and verified findings go on while rejected ones are named, by index, for
 * one repair. Empty optional fields are dropped before validation; required
 * facts stay required. Only the inputs a rejected finding cites are withheld
 * from the batch's processed set: an input no finding cites was read and has
 * nothing, and is acknowledged.
 *
 * @module
 */
import { type EvidenceSegment, resolveQuote } from "./evidence.ts";

/** What a finding is. */
export type FindingKind = "obligation" | "event" | "info";

/** One input of a batch: a source record at the revision read, and its segments. */
export interface BatchInput {
  /** The record's key. */
  key: string;
  /** The revision the batch read. */
  revision: number;
  /** Its text, as numbered segments. */
  segments: EvidenceSegment[];
}

/** One exact quote a finding stands on. */
export interface Quote {
  /** The input's record key. */
  source: string;
  /** The segment's number. */
  segment: number;
  /** The exact original text. */
  text: string;
}

/** A finding that passed: private staging, before the Attention Center. */
export interface Candidate {
  /** Its place in the answer, from 1. */
  index: number;
  /** What it is. */
  kind: FindingKind;
  /** At most 200 characters. */
  title: string;
  /** Why it needs the person, at most 600 characters. */
  reason: string;
  /** An event's start: a date (`2026-03-13`) or a time with its offset. */
  start?: string;
  /** An event's end, in the same form. */
  end?: string;
  /** An obligation's due date or time. */
  due?: string;
  /** The quotes it stands on, exact. */
  evidence: Quote[];
  /** The inputs it cites, by key. */
  inputs: string[];
}

/** A finding that did not pass, and why, for the repair. */
export interface Rejection {
  /** Its place in the answer, from 1. */
  index: number;
  /** The inputs it cites, by their number in the batch (from 1). */
  inputs: number[];
  /** What is wrong, in words the model can act on. */
  reason: string;
}

/** A batch's answer, checked. */
export interface CheckedExtraction {
  /** Findings that passed. */
  verified: Candidate[];
  /** Findings that did not. */
  rejected: Rejection[];
  /** The whole answer was not the shape asked for; null when it was. */
  malformed: string | null;
}

/** Titles and reasons of candidates, in characters. */
export const CANDIDATE_LIMITS: Readonly<{ titleChars: number; reasonChars: number }> = Object
  .freeze({ titleChars: 200, reasonChars: 600 });

/** The JSON Schema the extraction answer is asked in: inputs and segments by number. */
export const EXTRACTION_SCHEMA: Readonly<Record<string, unknown>> = Object.freeze({
  type: "object",
  additionalProperties: false,
  required: ["findings"],
  properties: {
    findings: {
      type: "array",
      items: {
        type: "object",
        additionalProperties: false,
        required: ["kind", "title", "reason", "evidence"],
        properties: {
          kind: { enum: ["obligation", "event", "info"] },
          title: { type: "string", maxLength: CANDIDATE_LIMITS.titleChars },
          reason: { type: "string", maxLength: CANDIDATE_LIMITS.reasonChars },
          start: { type: "string" },
          end: { type: "string" },
          due: { type: "string" },
          evidence: {
            type: "array",
            minItems: 1,
            items: {
              type: "object",
              additionalProperties: false,
              required: ["input", "segment"],
              properties: {
                input: { type: "integer", minimum: 1 },
                segment: { type: "integer", minimum: 1 },
                quote: { type: "string" },
              },
            },
          },
        },
      },
    },
  },
});

const KINDS: readonly string[] = ["obligation", "event", "info"];
const OPTIONAL = ["start", "end", "due"] as const;
/** A date, or a date and time with seconds optional and its offset: what a start may be. */
const WHEN = /^\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,3})?)?(?:Z|[+-]\d{2}:\d{2}))?$/;

/**
 * Checks a batch's answer, finding by finding.
 *
 * @param answer The model's JSON.
 * @param inputs The batch's inputs, in the order the model was given them (input 1 first).
 */
export function checkExtraction(answer: unknown, inputs: readonly BatchInput[]): CheckedExtraction {
  const findings = (answer as { findings?: unknown } | null)?.findings;
  if (!Array.isArray(findings)) {
    return { verified: [], rejected: [], malformed: 'the answer has no "findings" list' };
  }
  const segments = new Map(inputs.map((input) => [input.key, input.segments]));
  const verified: Candidate[] = [];
  const rejected: Rejection[] = [];
  findings.forEach((finding, i) => {
    const checked = checkFinding(finding, i + 1, inputs, segments);
    if (checked.ok) verified.push(checked.candidate);
    else rejected.push(checked.rejection);
  });
  return { verified, rejected, malformed: null };
}

/** One finding, checked: a candidate, or why not. */
function checkFinding(
  value: unknown,
  index: number,
  inputs: readonly BatchInput[],
  segments: ReadonlyMap<string, readonly EvidenceSegment[]>,
): { ok: true; candidate: Candidate } | { ok: false; rejection: Rejection } {
  const finding = withoutEmptyOptionals(value);
  const cited = citedInputs(finding, inputs.length);
  const reject = (reason: string) => ({
    ok: false as const,
    rejection: { index, inputs: cited, reason },
  });
  if (finding === null) return reject("it is not an object");
  const { kind, title, reason } = finding;
  if (typeof kind !== "string" || !KINDS.includes(kind)) {
    return reject(`"kind" is one of obligation, event, info`);
  }
  const text = (name: string, field: unknown, max: number): string | ReturnType<typeof reject> => {
    if (typeof field !== "string" || field.trim() === "") return reject(`"${name}" is required`);
    if (field.trim().length > max) {
      return reject(`"${name}" is ${field.trim().length} characters; at most ${max}`);
    }
    return field.trim();
  };
  const checkedTitle = text("title", title, CANDIDATE_LIMITS.titleChars);
  if (typeof checkedTitle !== "string") return checkedTitle;
  const checkedReason = text("reason", reason, CANDIDATE_LIMITS.reasonChars);
  if (typeof checkedReason !== "string") return checkedReason;
  const times: Partial<Record<(typeof OPTIONAL)[number], string>> = {};
  for (const name of OPTIONAL) {
    const field = finding[name];
    if (field === undefined) continue;
    if (typeof field !== "string" || !WHEN.test(field) || Number.isNaN(Date.parse(field))) {
      return reject(
        `"${name}" is a date (2026-03-13) or a time with its offset (2026-03-13T09:30:00+01:00)`,
      );
    }
    times[name] = field;
  }
  if (kind === "event" && times.start === undefined) {
    return reject(`an event needs "start": the date or time the source gives for it`);
  }
  const evidence = finding.evidence;
  if (!Array.isArray(evidence) || evidence.length === 0) {
    return reject(`"evidence" cites at least one segment`);
  }
  const quotes: Quote[] = [];
  for (const [at, ref] of evidence.entries()) {
    const { input, segment, quote } = (ref ?? {}) as Record<string, unknown>;
    const source = Number.isInteger(input) ? inputs[(input as number) - 1] : undefined;
    if (!source) {
      return reject(`evidence ${at + 1} cites input ${JSON.stringify(input)}, which was not given`);
    }
    const resolved = resolveQuote(segments, {
      source: source.key,
      segment: segment as number,
      ...(quote === undefined || quote === "" ? {} : { quote: quote as string }),
    });
    if (!resolved.ok) return reject(`evidence ${at + 1} (input ${input}): ${resolved.reason}`);
    quotes.push({ source: source.key, segment: resolved.segment, text: resolved.quote });
  }
  return {
    ok: true,
    candidate: {
      index,
      kind: kind as FindingKind,
      title: checkedTitle,
      reason: checkedReason,
      ...times,
      evidence: quotes,
      inputs: [...new Set(quotes.map((q) => q.source))],
    },
  };
}

/** The finding with its empty optional fields (`""`, null) left out; null when it is no object. */
function withoutEmptyOptionals(value: unknown): Record<string, unknown> | null {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return null;
  const out: Record<string, unknown> = { ...value as Record<string, unknown> };
  for (const name of OPTIONAL) {
    if (out[name] === "" || out[name] === null) delete out[name];
  }
  return out;
}

/** The input numbers a finding cites, as far as it can be read. */
function citedInputs(finding: Record<string, unknown> | null, count: number): number[] {
  const evidence = Array.isArray(finding?.evidence) ? finding.evidence : [];
  const numbers = evidence.map((ref) => (ref as { input?: unknown } | null)?.input)
    .filter((n): n is number =>
      Number.isInteger(n) && (n as number) >= 1 && (n as number) <= count
    );
  return [...new Set(numbers)].sort((a, b) => a - b);
}

/**
 * The inputs a batch acknowledges as processed at the revision it read: all
 * but those a rejected finding cites. With nothing verified and some
 * rejected, that is the inputs no finding cites, acknowledged without another
 * model call.
 *
 * @param inputs The batch's inputs.
 * @param checked Its checked answer.
 * @returns The keys acknowledged, and those withheld for a later batch.
 */
export function acknowledgedInputs(
  inputs: readonly BatchInput[],
  checked: CheckedExtraction,
): { acknowledged: string[]; withheld: string[] } {
  if (checked.malformed !== null) return { acknowledged: [], withheld: inputs.map((i) => i.key) };
  const withheld = new Set<number>();
  for (const rejection of checked.rejected) {
    for (const input of rejection.inputs) withheld.add(input);
  }
  const acknowledged: string[] = [];
  const kept: string[] = [];
  inputs.forEach((input, i) => (withheld.has(i + 1) ? kept : acknowledged).push(input.key));
  return { acknowledged, withheld: kept };
}

/**
 * The one repair's message: each rejected finding by its index and the
 * inputs it cites, what is wrong, and what to send back — only those
 * findings, corrected, or left out. It quotes nothing of the sources.
 *
 * @param checked The checked answer, with at least one rejection.
 */
export function repairMessage(checked: CheckedExtraction): string {
  const lines = checked.malformed !== null
    ? [`The answer was not the shape asked for: ${checked.malformed}.`]
    : checked.rejected.map((r) =>
      `- Finding ${r.index}${
        r.inputs.length > 0 ? ` (input ${r.inputs.join(", ")})` : ""
      }: ${r.reason}.`
    );
  return [
    "Some findings could not be accepted:",
    ...lines,
    "",
    'Answer again with {"findings": [...]} holding only these findings, corrected; leave out any ' +
    "you cannot ground in the segments given. Quote the segments' words exactly as they are.",
  ].join("\n");
}
