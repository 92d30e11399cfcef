import assert from "node:assert/strict";
import { InvalidInputError } from "../../runtime/errors.ts";
import {
  CURSOR_SECRET_BYTES,
  cursorRefusal,
  newCursorSecret,
  RecordCursors,
} from "../../runtime/memory/record_cursors.ts";

const SCOPE = { reader: "package box", prefix: "box.note/" };

function refusedAsCursor(error: Error): boolean {
  assert.ok(error instanceof InvalidInputError, String(error));
  assert.match(error.message, /^A list query's "cursor" must be the one the page before returned/);
  return true;
}

Deno.test("`RecordCursors` issues cursors that open only for the listing they were issued to", async (t) => {
  const secret = newCursorSecret();
  const cursors = new RecordCursors(() => Promise.resolve(secret));
  const key = "box.note/alice-password-hunter2";
  const cursor = await cursors.issue(key, SCOPE);

  await t.step("the cursor opens to its key for the same reader and prefix", async () => {
    assert.equal(await cursors.open(cursor, SCOPE), key);
    // Another instance under the same secret (another process) opens it too.
    const elsewhere = new RecordCursors(() => Promise.resolve(secret));
    assert.equal(await elsewhere.open(cursor, { ...SCOPE }), key);
  });

  await t.step("the cursor shows nothing of the key, as text or as base64", async () => {
    const bytes = Uint8Array.fromBase64(cursor, { alphabet: "base64url" });
    const asText = new TextDecoder().decode(bytes);
    for (const text of [cursor, asText]) assert.ok(!/alice|password|box\.note/.test(text), text);
    // Two cursors of the same key differ: nothing repeats to compare.
    assert.notEqual(await cursors.issue(key, SCOPE), cursor);
  });

  await t.step("another reader, another prefix or another secret is refused", async () => {
    await assert.rejects(
      cursors.open(cursor, { ...SCOPE, reader: "package spy" }),
      refusedAsCursor,
    );
    await assert.rejects(cursors.open(cursor, { ...SCOPE, prefix: "box." }), refusedAsCursor);
    const other = new RecordCursors(() => Promise.resolve(newCursorSecret()));
    await assert.rejects(other.open(cursor, SCOPE), refusedAsCursor);
  });

  await t.step("anything else passed as a cursor is refused, naming it", async () => {
    const plain = btoa(key).replace(/=+$/, "");
    for (const bad of [plain, "", "%%%", cursor.slice(0, -2), cursor + "AA", "A".repeat(5_000)]) {
      await assert.rejects(cursors.open(bad, SCOPE), refusedAsCursor);
    }
    for (const bad of [7, null, { key }]) {
      await assert.rejects(cursors.open(bad, SCOPE), refusedAsCursor);
    }
    assert.match(cursorRefusal("abc").message, /"abc" was not issued for this query/);
    assert.match(cursorRefusal("x".repeat(100)).message, /"x{40}…"/);
  });

  await t.step("a cursor of the longest key is opened", async () => {
    const longest = `box.note/${"😀".repeat(291)}`;
    assert.equal(await cursors.open(await cursors.issue(longest, SCOPE), SCOPE), longest);
  });
});

Deno.test("`RecordCursors` asks for its secret once, and again after a failure", async () => {
  let asked = 0;
  const cursors = new RecordCursors(() => {
    asked++;
    return asked === 1
      ? Promise.reject(new Error("the installation is not readable now"))
      : Promise.resolve(new Uint8Array(CURSOR_SECRET_BYTES).fill(7));
  });
  await assert.rejects(cursors.issue("box.note/a", SCOPE), /not readable now/);
  const cursor = await cursors.issue("box.note/a", SCOPE);
  assert.equal(await cursors.open(cursor, SCOPE), "box.note/a");
  assert.equal(asked, 2);
});

Deno.test("`RecordCursors` seals as WebCrypto's AES-GCM does: a cursor sealed by either opens with the other", async () => {
  const secret = newCursorSecret();
  const cursors = new RecordCursors(() => Promise.resolve(secret));
  const key = await crypto.subtle.importKey("raw", secret, "AES-GCM", false, [
    "encrypt",
    "decrypt",
  ]);
  const bound = new TextEncoder().encode(
    JSON.stringify(["record cursor", SCOPE.reader, SCOPE.prefix]),
  );
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const sealed = new Uint8Array(
    await crypto.subtle.encrypt(
      { name: "AES-GCM", iv, additionalData: bound },
      key,
      new TextEncoder().encode("box.note/7"),
    ),
  );
  const byWebCrypto = new Uint8Array([...iv, ...sealed]);
  assert.equal(
    await cursors.open(byWebCrypto.toBase64({ alphabet: "base64url", omitPadding: true }), SCOPE),
    "box.note/7",
  );
  const ours = Uint8Array.fromBase64(await cursors.issue("box.note/8", SCOPE), {
    alphabet: "base64url",
  });
  const opened = await crypto.subtle.decrypt(
    { name: "AES-GCM", iv: ours.subarray(0, 12), additionalData: bound },
    key,
    ours.subarray(12),
  );
  assert.equal(new TextDecoder().decode(opened), "box.note/8");
});
