/**
 * Agents' errors name where to get what they need ("install it from
 * https://…"). This splits plain words into text runs and web addresses,
 * so that Chat draws each address as a link built from text, never as HTML.
 *
 * @module
 */

/** A run of words: plain text, or an http(s) address with its `href`. */
export interface WebLink {
  /** The run's text, as the agent wrote it. */
  text: string;
  /** The address a link opens; absent for plain text. */
  href?: string;
}

/** An http(s) address up to the next space or quote-like character. */
const ADDRESS = /https?:\/\/[^\s<>"'`«»]+/g;
/** Punctuation that ends a sentence after an address rather than belonging to it. */
const TRAILING = /[.,;:!?)\]]+$/;

/**
 * Splits text into plain runs and http(s) addresses, in order. Punctuation
 * right after an address (a sentence's full stop, a closing parenthesis)
 * stays text; an address that does not parse stays text.
 *
 * @param text The words, as the agent (or Sync) wrote them.
 */
export function webLinks(text: string): WebLink[] {
  const runs: WebLink[] = [];
  let from = 0;
  const plain = (run: string) => {
    if (run === "") return;
    const last = runs.at(-1);
    if (last && last.href === undefined) last.text += run;
    else runs.push({ text: run });
  };
  for (const found of text.matchAll(ADDRESS)) {
    const address = found[0].replace(TRAILING, "");
    const at = found.index;
    plain(text.slice(from, at));
    if (URL.canParse(address) && address.length > "https://".length) {
      runs.push({ text: address, href: new URL(address).href });
    } else plain(address);
    from = at + address.length;
  }
  plain(text.slice(from));
  return runs;
}
