import assert from "node:assert/strict";
import { toolKindWords, toolTitleWords } from "../../ui/chat/tool_words.ts";

Deno.test("`toolTitleWords()` names an MCP server's tool in words", async (t) => {
  await t.step("Sync's own server is named Sync, its tool after it", () => {
    assert.equal(toolTitleWords("sync-mcp (sync)"), "A tool of Sync");
    assert.equal(toolTitleWords("memory_list (sync)"), "A tool of Sync: memory_list");
  });
  await t.step("another server is named as the agent named it", () => {
    assert.equal(toolTitleWords("search (github)"), "A tool of github: search");
  });
  await t.step("any other title stays as the agent wrote it", () => {
    assert.equal(toolTitleWords("Read README.md"), "Read README.md");
    assert.equal(toolTitleWords("Run (a b) now"), "Run (a b) now");
  });
});

Deno.test("`toolKindWords()` leaves out a kind that says nothing", () => {
  assert.equal(toolKindWords("other"), null);
  assert.equal(toolKindWords(undefined), null);
  assert.equal(toolKindWords("read"), "read");
});
