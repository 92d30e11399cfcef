/**
 * HTML newsletters of a chosen size, shaped like the ones mailing services
 * send: a `<style>` sheet, a `<script>`, nested layout tables, tracking links,
 * images and entities, quoted-printable encoded.
 *
 * @module
 */

import { encodeText, quotedPrintable } from "./_encodings.ts";
import type { Prng } from "./_prng.ts";
import { asciiSentence } from "./_words.ts";

const HEAD = `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Weekly digest</title>
<style type="text/css">
body { margin: 0; padding: 0; background-color: #f4f4f4; font-family: Helvetica, Arial, sans-serif; }
table.main { width: 600px; margin: 0 auto; border-collapse: collapse; }
td.cell { padding: 12px 18px; color: #333333; font-size: 15px; line-height: 22px; }
a.button { display: inline-block; padding: 10px 20px; background: #0066cc; color: #ffffff; }
@media only screen and (max-width: 620px) { table.main { width: 100% !important; } }
</style>
<script type="text/javascript">
  window.dataLayer = window.dataLayer || [];
  function track(id) { window.dataLayer.push({ event: "open", id: id }); }
  if (document.readyState === "complete") { track("digest"); }
</script>
</head>
<body>
`;

function block(prng: Prng, index: number): string {
  const id = prng.hex(24);
  return `<table class="main" role="presentation" cellpadding="0" cellspacing="0" border="0">
<tr><td class="cell" style="padding: 12px 18px; border-bottom: 1px solid #dddddd;">
<h2 style="margin: 0 0 8px 0; font-size: 20px;">${index + 1}. ${asciiSentence(prng, 5)}</h2>
<p style="margin: 0 0 12px 0;">${asciiSentence(prng, 14)} ${
    asciiSentence(prng, 10)
  } Fish &amp; chips&nbsp;for 5&nbsp;&euro; &mdash; caf&eacute; &#8364; &lt;new&gt;.</p>
<table role="presentation" width="100%"><tr>
<td style="width: 50%;"><img src="https://cdn.news.example.com/i/${id}.png" width="260" height="140" alt="${
    asciiSentence(prng, 3)
  }"></td>
<td style="width: 50%; vertical-align: top;">${
    asciiSentence(prng, 12)
  }<br><a class="button" href="https://click.news.example.com/ls/click?upn=${id}${
    prng.hex(40)
  }&amp;utm_source=newsletter&amp;utm_medium=email">Read more</a></td>
</tr></table>
</td></tr>
</table>
`;
}

const TAIL = `<p style="font-size: 11px; color: #999999;">You receive this because you subscribed.
<a href="https://news.example.com/unsubscribe">Unsubscribe</a> &middot; &copy; 2026 News&nbsp;Ltd.</p>
</body></html>
`;

/**
 * An HTML newsletter, quoted-printable, about `size` bytes once encoded
 * (within one block, about 1.2 KB, over).
 *
 * @param eol The line ending the message uses.
 */
export function newsletterHtml(prng: Prng, size: number, eol: string): string {
  const encode = (html: string) => quotedPrintable(encodeText(html, "utf-8"), eol);
  let out = encode(HEAD);
  const tail = encode(TAIL);
  for (let i = 0; out.length + tail.length < size; i++) out += encode(block(prng, i));
  return out + tail;
}
