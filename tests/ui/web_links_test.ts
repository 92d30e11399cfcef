import assert from "node:assert/strict";
import { webLinks } from "../../ui/chat/web_links.ts";

Deno.test("`webLinks()` splits words into plain runs and http(s) addresses", async (t) => {
  await t.step("an address in a sentence is a link; its full stop stays text", () => {
    assert.deepEqual(webLinks("Install it from https://example.com/agent/install."), [
      { text: "Install it from " },
      { text: "https://example.com/agent/install", href: "https://example.com/agent/install" },
      { text: "." },
    ]);
  });
  await t.step("words with no address are one plain run; empty text is none", () => {
    assert.deepEqual(webLinks("The agent failed"), [{ text: "The agent failed" }]);
    assert.deepEqual(webLinks(""), []);
  });
  await t.step("only http and https make links, never another scheme", () => {
    assert.deepEqual(webLinks("see javascript:alert(1) or file:///etc/passwd"), [
      { text: "see javascript:alert(1) or file:///etc/passwd" },
    ]);
    assert.deepEqual(webLinks("(http://localhost:8080/x) and https://"), [
      { text: "(" },
      { text: "http://localhost:8080/x", href: "http://localhost:8080/x" },
      { text: ") and https://" },
    ]);
  });
  await t.step("an address stops at a space, a quote or an angle bracket", () => {
    assert.deepEqual(webLinks('"https://a.example/b"<script>'), [
      { text: '"' },
      { text: "https://a.example/b", href: "https://a.example/b" },
      { text: '"<script>' },
    ]);
  });
});
