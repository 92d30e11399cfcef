import type { ComponentChildren, JSX } from "preact";

/** Props of {@linkcode Markdown}. */
export interface MarkdownProps {
  /** The text, as its author wrote it. */
  text: string;
  /** The level its `#` headings start at (a page's sections are already headed). */
  headingLevel?: 3 | 4 | 5;
}

/**
 * A small part of markdown — headings, paragraphs, lists, fenced code,
 * inline code, bold and italics — drawn as elements built here. Nothing in
 * the text is ever read as HTML: a tag in it shows as the characters it is.
 */
export function Markdown(props: MarkdownProps) {
  return <div class="markdown">{blocksOf(props.text, props.headingLevel ?? 4)}</div>;
}

type Block =
  | { kind: "heading"; level: number; text: string }
  | { kind: "paragraph"; text: string }
  | { kind: "list"; ordered: boolean; items: string[] }
  | { kind: "code"; text: string };

function blocksOf(text: string, baseLevel: number): JSX.Element[] {
  return parse(text).map((block, index) => {
    switch (block.kind) {
      case "heading": {
        const level = Math.min(6, baseLevel + block.level - 1);
        const Tag = `h${level}` as "h4";
        return <Tag key={index} class="md-heading">{inline(block.text)}</Tag>;
      }
      case "paragraph":
        return <p key={index}>{inline(block.text)}</p>;
      case "list": {
        const items = block.items.map((item, i) => <li key={i}>{inline(item)}</li>);
        return block.ordered ? <ol key={index}>{items}</ol> : <ul key={index}>{items}</ul>;
      }
      case "code":
        return <pre key={index} class="md-code"><code>{block.text}</code></pre>;
    }
  });
}

function parse(text: string): Block[] {
  const blocks: Block[] = [];
  const lines = text.replace(/\r\n?/g, "\n").split("\n");
  let paragraph: string[] = [];
  let list: Extract<Block, { kind: "list" }> | null = null;
  const flush = () => {
    if (paragraph.length) blocks.push({ kind: "paragraph", text: paragraph.join(" ") });
    paragraph = [];
    list = null;
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (/^\s*```/.test(line)) {
      flush();
      const code: string[] = [];
      for (i++; i < lines.length && !/^\s*```/.test(lines[i]); i++) code.push(lines[i]);
      blocks.push({ kind: "code", text: code.join("\n") });
      continue;
    }
    if (line.trim() === "") {
      flush();
      continue;
    }
    const heading = /^(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line);
    if (heading) {
      flush();
      blocks.push({ kind: "heading", level: heading[1].length, text: heading[2] });
      continue;
    }
    const item = /^\s*(?:([-*+])|\d+[.)])\s+(.*)$/.exec(line);
    if (item) {
      const ordered = item[1] === undefined;
      if (paragraph.length) flush();
      if (!list || list.ordered !== ordered) {
        list = { kind: "list", ordered, items: [] };
        blocks.push(list);
      }
      list.items.push(item[2]);
      continue;
    }
    if (list && /^\s+/.test(line)) {
      // An indented line goes on with the item above it.
      list.items[list.items.length - 1] += ` ${line.trim()}`;
      continue;
    }
    list = null;
    paragraph.push(line.trim());
  }
  flush();
  return blocks;
}

/** Inline code, bold and italics; everything else is text. */
function inline(text: string): ComponentChildren[] {
  const parts: ComponentChildren[] = [];
  const pattern =
    /`([^`]+)`|\*\*([^*]+)\*\*|(?<![\w*])[*_]([^*_\s](?:[^*_]*[^*_\s])?)[*_](?![\w*])/g;
  let last = 0;
  for (const match of text.matchAll(pattern)) {
    if (match.index > last) parts.push(text.slice(last, match.index));
    if (match[1] !== undefined) parts.push(<code>{match[1]}</code>);
    else if (match[2] !== undefined) parts.push(<strong>{match[2]}</strong>);
    else parts.push(<em>{match[3]}</em>);
    last = match.index + match[0].length;
  }
  if (last < text.length) parts.push(text.slice(last));
  return parts;
}
