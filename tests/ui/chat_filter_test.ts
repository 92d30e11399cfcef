import assert from "node:assert/strict";
import type { ChatListResponse, ChatRow } from "../../runtime/web/api/chat_types.ts";
import { chatRowCount, filterChatList } from "../../ui/chat/chat_filter.ts";
import { matchesFilter } from "../../ui/common/filter_match.ts";

Deno.test("`matchesFilter()` keeps a row that has every word", async (t) => {
  await t.step("an empty or blank filter keeps every row", () => {
    assert.equal(matchesFilter("", ["Hello"]), true);
    assert.equal(matchesFilter("   ", []), true);
  });
  await t.step("case does not count, and words may be in different fields", () => {
    assert.equal(matchesFilter("TRACK poll", ["Tracker", "poller", "Polls it"]), true);
    assert.equal(matchesFilter("track mail", ["Tracker", "poller", "Polls it"]), false);
  });
  await t.step("missing fields are skipped, and words do not run across fields", () => {
    assert.equal(matchesFilter("null", ["Hello", null, undefined]), false);
    assert.equal(matchesFilter("lopo", ["hello", "poller"]), false);
  });
});

function row(key: string, title: string, agent = "demo"): ChatRow {
  const at = "2026-01-01T00:00:00.000Z";
  return { key, title, agent, state: "ended", createdAt: at, updatedAt: at, waitsFor: null };
}

Deno.test("`filterChatList()` keeps rows by title, agent or ordering extension", async (t) => {
  const list: ChatListResponse = {
    project: "/p",
    conversations: [row("a", "Fix the login page"), row("b", "Sort the inbox", "codex")],
    groups: [
      { extensionId: "triage", name: "Triage", rows: [row("c", "Issue 7: saving is slow")] },
      { extensionId: "mail", name: "Mail", rows: [row("d", "Answer Ada")] },
    ],
    archived: [row("e", "Old login bug"), row("f", "Plan the week")],
  };
  await t.step("by title", () => {
    const kept = filterChatList(list, "login");
    assert.deepEqual(kept.conversations.map((r) => r.key), ["a"]);
    assert.deepEqual(kept.groups, []);
    assert.deepEqual(kept.archived.map((r) => r.key), ["e"]);
  });
  await t.step("by agent", () => {
    assert.deepEqual(filterChatList(list, "CODEX").conversations.map((r) => r.key), ["b"]);
  });
  await t.step("by the ordering extension's name, and a group left empty goes", () => {
    const kept = filterChatList(list, "triage");
    assert.deepEqual(kept.conversations, []);
    assert.deepEqual(kept.groups.map((g) => [g.name, g.rows.map((r) => r.key)]), [
      ["Triage", ["c"]],
    ]);
  });
  await t.step("`chatRowCount()` counts every group's rows", () => {
    assert.equal(chatRowCount(list), 4);
    assert.equal(chatRowCount(filterChatList(list, "zebra")), 0);
  });
});
