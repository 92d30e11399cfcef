/**
 * The words fixture messages and events are made of: plain ASCII, and text
 * with the characters that tell charsets apart (umlauts and accents for
 * ISO-8859-1, the euro sign and curly quotes for windows-1252).
 *
 * @module
 */

import type { Prng } from "./_prng.ts";

/** Words of plain ASCII. */
export const WORDS = [
  "budget",
  "review",
  "meeting",
  "release",
  "draft",
  "invoice",
  "schedule",
  "notes",
  "proposal",
  "deadline",
  "garden",
  "travel",
  "report",
  "build",
  "deploy",
  "question",
  "agenda",
  "design",
  "ticket",
  "update",
] as const;

/** Sentences in ISO-8859-1's range: every character exists there. */
export const LATIN1_SENTENCES = [
  "Grüße aus München, die Rechnung für März folgt.",
  "Le café près de la gare ouvre à huit heures.",
  "Señor Núñez llegará mañana por la tarde.",
  "Smørrebrød på fredag, tag gerne kaffe med.",
] as const;

/** Sentences that need windows-1252: the euro sign, curly quotes, dashes. */
export const CP1252_SENTENCES = [
  "The “final” offer is 1.250 € – valid until Friday…",
  "She said ‘yes’ — the fee is 40 € per seat.",
  "Total: 99 € „inkl. MwSt.“ – danke!",
] as const;

/** Sentences with characters beyond any single-byte charset. */
export const UTF8_SENTENCES = [
  "Привет, встреча в пятницу в 10:00.",
  "会議は金曜日の午前十時です。",
  "Ελάτε στη συνάντηση της Παρασκευής.",
  "Quick ✓ on the 📎 attached notes.",
] as const;

/** A sentence of `count` ASCII words, capitalised, with a full stop. */
export function asciiSentence(prng: Prng, count: number): string {
  const words: string[] = [];
  for (let i = 0; i < count; i++) words.push(prng.pick(WORDS));
  const text = words.join(" ");
  return text[0].toUpperCase() + text.slice(1) + ".";
}

/** A few lines of ASCII prose, joined by `\n`. */
export function asciiParagraphs(prng: Prng, lines: number): string {
  const out: string[] = [];
  for (let i = 0; i < lines; i++) out.push(asciiSentence(prng, prng.int(5, 12)));
  return out.join("\n");
}
