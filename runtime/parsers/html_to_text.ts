/**
 * HTML turned to plain text, for a mail's HTML body: what a person would
 * read of it, without markup. Scripts, styles and the head are dropped;
 * paragraphs, headings, list items and table rows become line breaks; links
 * keep their text. One pass over the input, never a regular expression that
 * can backtrack: a hostile body costs time in proportion to its length.
 *
 * @module
 */

/** Tags whose content is never text. */
const DROPPED = new Set(["script", "style", "head", "title", "noscript", "template", "svg"]);

/** Tags that stand on lines of their own: a paragraph break before and after. */
const BLOCKS = new Set([
  "p",
  "div",
  "table",
  "tr",
  "h1",
  "h2",
  "h3",
  "h4",
  "h5",
  "h6",
  "ul",
  "ol",
  "blockquote",
  "section",
  "article",
  "header",
  "footer",
  "nav",
  "aside",
  "main",
  "pre",
  "hr",
  "form",
  "dl",
  "figure",
  "address",
  "center",
  "tbody",
  "thead",
  "tfoot",
]);

/** Named entities mail commonly holds; others are left as written. */
const ENTITIES: Readonly<Record<string, string>> = {
  amp: "&",
  lt: "<",
  gt: ">",
  quot: '"',
  apos: "'",
  nbsp: " ",
  copy: "©",
  reg: "®",
  trade: "™",
  hellip: "…",
  mdash: "—",
  ndash: "–",
  lsquo: "‘",
  rsquo: "’",
  ldquo: "“",
  rdquo: "”",
  laquo: "«",
  raquo: "»",
  bull: "•",
  middot: "·",
  euro: "€",
  pound: "£",
  yen: "¥",
  cent: "¢",
  sect: "§",
  deg: "°",
  times: "×",
  zwnj: "",
  zwj: "",
  shy: "",
  thinsp: " ",
  ensp: " ",
  emsp: " ",
};

/** Options for {@linkcode htmlToText}. */
export interface HtmlToTextOptions {
  /**
   * Stop once the text has this many characters (it may run a little past):
   * a caller that keeps only the start need not read the rest.
   */
  maxChars?: number;
}

/**
 * The text a person reads of `html`.
 *
 * @param html An HTML document or fragment.
 * @param options Where to stop.
 * @returns The text: paragraphs separated by a blank line, lines trimmed.
 * @example
 * ```ts
 * htmlToText("<p>Hello <a href='https://x'>there</a></p><script>x()</script><p>Bye</p>");
 * // "Hello there\n\nBye"
 * ```
 */
export function htmlToText(html: string, options: HtmlToTextOptions = {}): string {
  const maxChars = options.maxChars ?? Infinity;
  const out: string[] = [];
  let length = 0;
  let pre = 0;
  let i = 0;
  const n = html.length;
  const emit = (text: string) => {
    out.push(text);
    length += text.length;
  };
  while (i < n && length <= maxChars) {
    const lt = html.indexOf("<", i);
    const textEnd = lt === -1 ? n : lt;
    if (textEnd > i) emit(textRun(html.slice(i, textEnd), pre > 0));
    if (lt === -1) break;
    i = lt;
    if (html.startsWith("<!--", i)) {
      const end = html.indexOf("-->", i + 4);
      i = end === -1 ? n : end + 3;
      continue;
    }
    const tag = readTag(html, i);
    if (tag === null) {
      // A `<` that opens no tag is text.
      emit("<");
      i++;
      continue;
    }
    i = tag.end;
    const name = tag.name;
    if (!tag.closing && DROPPED.has(name)) {
      i = skipPast(html, i, name);
      continue;
    }
    if (name === "br") emit("\n");
    else if (name === "li" || name === "dt" || name === "dd") {
      // The next item or the list's end starts the next line.
      if (!tag.closing) emit("\n- ");
    } else if (name === "td" || name === "th") emit(" ");
    else if (BLOCKS.has(name)) {
      emit("\n\n");
      if (name === "pre") pre = Math.max(0, pre + (tag.closing ? -1 : 1));
    }
  }
  return tidy(out.join(""));
}

/** A tag at `at` (which holds `<`): its lowercase name, whether it closes, and where it ends. */
function readTag(
  html: string,
  at: number,
): { name: string; closing: boolean; end: number } | null {
  let i = at + 1;
  const closing = html[i] === "/";
  if (closing) i++;
  const first = html.charCodeAt(i);
  const isLetter = (first >= 65 && first <= 90) || (first >= 97 && first <= 122);
  if (!isLetter && html[i] !== "!" && html[i] !== "?") return null;
  const nameStart = i;
  while (i < html.length && /[A-Za-z0-9:-]/.test(html[i])) i++;
  const name = html.slice(nameStart, i).toLowerCase();
  // The tag ends at the first `>` outside a quoted attribute value.
  let quote = "";
  for (; i < html.length; i++) {
    const c = html[i];
    if (quote) {
      if (c === quote) quote = "";
    } else if (c === '"' || c === "'") quote = c;
    else if (c === ">") return { name, closing, end: i + 1 };
  }
  return { name, closing, end: html.length };
}

/** Where the content of a dropped element ends: past its closing tag, or the end. */
function skipPast(html: string, from: number, name: string): number {
  const closer = `</${name}`;
  let i = from;
  while (i < html.length) {
    const lt = html.indexOf("</", i);
    if (lt === -1) return html.length;
    if (html.slice(lt, lt + closer.length).toLowerCase() === closer) {
      const gt = html.indexOf(">", lt);
      return gt === -1 ? html.length : gt + 1;
    }
    i = lt + 2;
  }
  return html.length;
}

/** A run of text between tags: entities decoded, white space made single outside `<pre>`. */
function textRun(text: string, pre: boolean): string {
  const decoded = text.includes("&") ? decodeEntities(text) : text;
  return pre ? decoded : decoded.replace(/[ \t\r\n\f]+/g, " ");
}

function decodeEntities(text: string): string {
  return text.replace(/&(#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[a-zA-Z]{2,8});/g, (all, body) => {
    if (body[0] !== "#") {
      const name = body.toLowerCase();
      return Object.hasOwn(ENTITIES, name) ? ENTITIES[name] : all;
    }
    const code = body[1] === "x" || body[1] === "X"
      ? parseInt(body.slice(2), 16)
      : parseInt(body.slice(1), 10);
    if (code === 0 || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) return "\ufffd";
    return String.fromCodePoint(code);
  });
}

/** Lines trimmed, non-breaking spaces made plain, at most one blank line in a row, ends trimmed. */
function tidy(text: string): string {
  const lines = text.replaceAll("\u00a0", " ").split("\n").map((line) => line.trim());
  const kept: string[] = [];
  for (const line of lines) {
    if (line === "" && (kept.length === 0 || kept[kept.length - 1] === "")) continue;
    kept.push(line);
  }
  while (kept.length > 0 && kept[kept.length - 1] === "") kept.pop();
  return kept.join("\n");
}
