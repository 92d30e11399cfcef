import assert from "node:assert/strict";
import { htmlToText } from "../../runtime/parsers/mod.ts";

Deno.test("`htmlToText()` turns HTML into the text a person reads", async (t) => {
  await t.step("scripts, styles and the head are dropped", () => {
    assert.equal(
      htmlToText(
        "<html><head><title>T</title><style>p{color:red}</style></head><body>" +
          "<script>alert(1)</script><p>Hello</p><SCRIPT type='x'>bad()</SCRIPT></body></html>",
      ),
      "Hello",
    );
  });

  await t.step("paragraphs become blank lines, breaks line ends, list items lines", () => {
    assert.equal(
      htmlToText("<p>One</p><p>Two<br>three</p><ul><li>a</li><li>b</li></ul>"),
      "One\n\nTwo\nthree\n\n- a\n- b",
    );
  });

  await t.step("links keep their text; entities are decoded; white space made single", () => {
    assert.equal(
      htmlToText(
        'Read <a href="https://x.example/?a=1&amp;b=2">the   news</a> &amp; more&nbsp;&#233;&#x263A;',
      ),
      "Read the news & more é☺",
    );
  });

  await t.step("a name every object inherits is no entity, and stays as written", () => {
    assert.equal(
      htmlToText("<p>&constructor; &toString; &proto;</p>"),
      "&constructor; &toString; &proto;",
    );
  });

  await t.step("a `>` inside a quoted attribute does not end the tag", () => {
    assert.equal(htmlToText('<img alt="a > b">after'), "after");
  });

  await t.step("unclosed comments, scripts and tags end the text without hanging", () => {
    const hostile = "<!--".repeat(50_000) + "<script>".repeat(50_000) + "<a ".repeat(50_000);
    const started = performance.now();
    assert.equal(htmlToText("text " + hostile), "text");
    assert.ok(performance.now() - started < 2_000);
  });

  await t.step("a lone `<` is text", () => {
    assert.equal(htmlToText("1 < 2 and 3 <4"), "1 < 2 and 3 <4");
  });

  await t.step("`maxChars` stops early", () => {
    const text = htmlToText("<p>word</p>".repeat(10_000), { maxChars: 100 });
    assert.ok(text.length < 200, `${text.length}`);
  });
});
