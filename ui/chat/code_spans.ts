/**
 * Agents write commands and names between backticks ("Requires setting the
 * `DEMO_KEY` variable"). This splits such words into plain runs and code
 * runs, so that Chat draws the code as `<code>` elements built from text,
 * never as HTML.
 *
 * @module
 */

/** A run of words: plain text, or what stood between a pair of backticks. */
export interface CodeSpan {
  /** The run's text, without its backticks. */
  text: string;
  /** True for a run that stood between backticks. */
  code: boolean;
}

/**
 * Splits text on backticks into plain and code runs, in order. A backtick
 * left without its pair stays in the text as the character it is; empty
 * runs are left out.
 *
 * @param text The words, as the agent (or Sync) wrote them.
 */
export function codeSpans(text: string): CodeSpan[] {
  const parts = text.split("`");
  // An even count of parts means the last backtick has no pair: it is text again.
  const unpaired = parts.length % 2 === 0 ? parts.splice(parts.length - 2, 2).join("`") : null;
  const spans: CodeSpan[] = [];
  const push = (run: string, code: boolean) => {
    if (run === "") return;
    const last = spans.at(-1);
    if (last && last.code === code && !code) last.text += run;
    else spans.push({ text: run, code });
  };
  parts.forEach((part, index) => push(part, index % 2 === 1));
  if (unpaired !== null) push(unpaired, false);
  return spans;
}
