import assert from "node:assert/strict";
import { messagesWords, signInLead } from "../../ui/chat/chat_words.ts";

Deno.test("`signInLead()` keeps what a sign-in's ways do not say", async (t) => {
  const own = "The agent codex needs a person to sign in before session/new (Authentication " +
    "required): sign in one of these ways: API key (add OPENAI_API_KEY to the agent codex's " +
    "definition); then continue";
  await t.step("the known failure that leads the text is kept, the ways' sentence is not", () => {
    const known =
      "codex is not signed in: run `npx -y @openai/codex login` in a terminal; then continue.";
    assert.equal(signInLead(`${known}\n\n${own}`, "codex"), known);
  });
  await t.step("a text that is only the ways' sentence leaves nothing", () => {
    assert.equal(signInLead(own, "codex"), null);
  });
  await t.step("another agent's sentence is not taken for this one's", () => {
    assert.equal(signInLead(own, "keyed"), own);
  });
});

Deno.test("`messagesWords()` counts messages in words", () => {
  assert.equal(messagesWords(1), "1 message");
  assert.equal(messagesWords(3), "3 messages");
});
