import assert from "node:assert/strict";
import { approvedWords, occasionWords } from "../../ui/extensions/page_words.ts";
import type { InstallAnswer } from "../../runtime/web/api/events_types.ts";

Deno.test("approvedWords() says what approving did in the window's words, not the CLI's", () => {
  const answer: InstallAnswer = {
    project: "/p",
    id: "hello",
    version: "1.1.0",
    from: "folder",
    dir: "/packages/hello",
    approved: ["net:api.example.com"],
    installed: null,
    lines: [
      "Installed hello@1.1.0 (folder: /packages/hello) into /p",
      "Approved: net:api.example.com",
    ],
  };
  assert.deepEqual(approvedWords(answer), [
    "hello 1.1.0 serves this project now — approved: net:api.example.com",
  ]);
  const withHandler = approvedWords({
    ...answer,
    approved: ["background", "schedule"],
    installed: { packageId: "hello", handler: "hello.setup", moment: "installed", outcome: "ok" },
  });
  assert.deepEqual(withHandler, [
    "hello 1.1.0 serves this project now — approved: background, schedule",
    "Its installed handler hello.setup ran.",
  ]);
  for (const line of withHandler) assert.doesNotMatch(line, /@|Installed |Approved: |folder:/);
});

Deno.test("`occasionWords()` says a device's task step in a person's words", async (t) => {
  await t.step("with the task's name", () => {
    assert.equal(
      occasionWords({
        kind: "task",
        task: { name: "sync", attempt: "a1", step: 1, trigger: "person" },
      }),
      "In its device's sync task",
    );
  });
  await t.step("without one", () => {
    assert.equal(occasionWords({ kind: "task" }), "In its device's task");
  });
});
