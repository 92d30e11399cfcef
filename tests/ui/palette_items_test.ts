import assert from "node:assert/strict";
import type { ExtensionSummary } from "../../runtime/web/api/types.ts";
import { paletteItems, type PaletteSources } from "../../ui/window/palette_items.ts";

function extension(id: string, name: string, more: Partial<ExtensionSummary> = {}) {
  return {
    id,
    name,
    description: `What ${name} does`,
    hasScreen: false,
    lamp: { state: "steady", notices: [] },
    ...more,
  } as unknown as ExtensionSummary;
}

Deno.test("`paletteItems()` lists what the command palette finds", async (t) => {
  const at = "2026-01-01T00:00:00.000Z";
  const sources: PaletteSources = {
    pathOf: (area, id) => `/p/site/${area}${id ? `/${id}` : ""}`,
    extensions: [
      extension("issues", "Issues", { hasScreen: true }),
      extension(
        "draft",
        "Draft",
        { hasScreen: true, lamp: { state: "dark", notices: [] } } as never,
      ),
    ],
    chat: {
      project: "/home/ada/site",
      conversations: [],
      archived: [],
      groups: [{
        extensionId: "triage",
        name: "Triage",
        rows: [{
          key: "k1",
          title: "Issue 7",
          agent: "demo",
          state: "ended",
          createdAt: at,
          updatedAt: at,
          waitsFor: null,
        }],
      }],
    },
  };
  await t.step("with no words: actions, places, extensions, conversations, in that order", () => {
    const items = paletteItems(sources, "");
    assert.deepEqual([...new Set(items.map((item) => item.group))], [
      "Actions",
      "Go to",
      "Extensions",
      "Conversations",
    ]);
    // A screen is a place once its package serves the project; a dark one's is not.
    const places = items.filter((item) => item.group === "Go to").map((item) => item.label);
    assert.deepEqual(places, [
      "Extensions",
      "Devices",
      "Chat",
      "Records",
      "All projects",
      "Issues screen",
    ]);
  });
  await t.step("an extension is found by its id; a conversation by its ordering extension", () => {
    assert.deepEqual(paletteItems(sources, "DRAFT").map((item) => item.key), ["extension-draft"]);
    const triage = paletteItems(sources, "triage");
    assert.deepEqual(triage.map((item) => [item.label, item.detail]), [[
      "Issue 7",
      "demo, for Triage",
    ]]);
    assert.deepEqual(triage[0].target, {
      kind: "go",
      path: "/p/site/chat/k1",
    });
  });
  await t.step("an action carries what the list's dialog is asked to do", () => {
    const [install] = paletteItems(sources, "install");
    assert.deepEqual(install.target, {
      kind: "go",
      path: "/p/site/extensions",
      action: "install",
    });
  });
});
