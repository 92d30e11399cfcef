import assert from "node:assert/strict";
import {
  assertKind,
  checkContent,
  checkFields,
  checkRecordInput,
  checkTitle,
  compareRecordKeys,
  KIND_PATTERN,
  parseRecordKey,
  utf8Bytes,
} from "../../runtime/memory/record.ts";
import { InvalidInputError, PayloadTooLargeError } from "../../runtime/errors.ts";
import { RECORD_LIMITS } from "../../runtime/limits.ts";

/** Throws exactly this class and message. */
function throwsWith(run: () => void, type: new (message: string) => Error, message: string): void {
  assert.throws(run, (error: Error) => {
    assert.ok(error instanceof type, `${error.name}: ${error.message}`);
    assert.equal(error.message, message);
    return true;
  });
}

const KIND_RULE = String
  .raw`must look like "package.type" (^[a-z][a-z0-9-]*(\.[a-zA-Z][a-zA-Z0-9_-]*)+$)`;

Deno.test("`parseRecordKey()` checks a key and splits it into kind and name", async (t) => {
  await t.step("splits at the first slash; the name may hold more", () => {
    assert.deepEqual(parseRecordKey("issues.issue/142"), { kind: "issues.issue", name: "142" });
    assert.deepEqual(parseRecordKey("mail.message/2024/06/1"), {
      kind: "mail.message",
      name: "2024/06/1",
    });
    assert.deepEqual(parseRecordKey("my-pkg.sub.Type_2/x y"), {
      kind: "my-pkg.sub.Type_2",
      name: "x y",
    });
  });

  await t.step("refuses what is not a string", () => {
    throwsWith(
      () => parseRecordKey(42),
      InvalidInputError,
      "Record key must be a string, got number.",
    );
    throwsWith(
      () => parseRecordKey(undefined),
      InvalidInputError,
      "Record key must be a string, got undefined.",
    );
  });

  await t.step("refuses a key without a slash, naming it", () => {
    throwsWith(
      () => parseRecordKey("issues.issue"),
      InvalidInputError,
      'Invalid record key "issues.issue": it must be "kind/name", and has no "/".',
    );
  });

  await t.step("refuses a malformed kind", () => {
    for (const kind of ["issues", "Issues.issue", "1ssues.issue", "issues.1", "issues..x", ""]) {
      throwsWith(
        () => parseRecordKey(`${kind}/1`),
        InvalidInputError,
        `Invalid record key ${JSON.stringify(`${kind}/1`)}: kind ${
          JSON.stringify(kind)
        } ${KIND_RULE}.`,
      );
    }
  });

  await t.step("refuses an empty name", () => {
    throwsWith(
      () => parseRecordKey("issues.issue/"),
      InvalidInputError,
      'Invalid record key "issues.issue/": the name after the kind is empty.',
    );
  });

  await t.step("refuses control characters, shown escaped", () => {
    for (
      const [key, shown] of [
        ["issues.issue/a\nb", String.raw`"issues.issue/a\nb"`],
        ["issues.issue/\u0000", String.raw`"issues.issue/\u0000"`],
        ["issues.issue/\u007f", '"issues.issue/\u007f"'],
        ["issues.issue/\u0085", '"issues.issue/\u0085"'],
      ]
    ) {
      throwsWith(
        () => parseRecordKey(key),
        InvalidInputError,
        `Invalid record key ${shown}: it contains a control character.`,
      );
    }
  });

  await t.step("refuses an unpaired surrogate", () => {
    throwsWith(
      () => parseRecordKey("issues.issue/\ud800x"),
      InvalidInputError,
      String.raw`Invalid record key "issues.issue/\ud800x": it contains an unpaired surrogate.`,
    );
  });

  await t.step("counts length in characters, not UTF-16 units, and shortens what it shows", () => {
    const prefix = "a.b/";
    const longest = prefix + "😀".repeat(RECORD_LIMITS.maxKeyChars - prefix.length);
    assert.equal(parseRecordKey(longest).name.length, 2 * (RECORD_LIMITS.maxKeyChars - 4));
    const tooLong = `${prefix}${"x".repeat(RECORD_LIMITS.maxKeyChars - prefix.length + 1)}`;
    throwsWith(
      () => parseRecordKey(tooLong),
      InvalidInputError,
      `Invalid record key "${tooLong.slice(0, 80)}…": 301 characters, at most 300 allowed.`,
    );
  });

  await t.step("checks the length first, then the characters, then the shape", () => {
    throwsWith(
      () => parseRecordKey("\n".repeat(301)),
      InvalidInputError,
      `Invalid record key "${String.raw`\n`.repeat(80)}…": 301 characters, at most 300 allowed.`,
    );
    throwsWith(
      () => parseRecordKey("NO SLASH\t"),
      InvalidInputError,
      String.raw`Invalid record key "NO SLASH\t": it contains a control character.`,
    );
  });
});

Deno.test("`assertKind()` checks a kind named in a query", async (t) => {
  await t.step("answers a well-formed kind unchanged", () => {
    assert.equal(assertKind("issues.issue"), "issues.issue");
    assert.equal(assertKind("a-b.c.D_e"), "a-b.c.D_e");
  });

  await t.step("refuses anything else, naming it", () => {
    throwsWith(
      () => assertKind("issues"),
      InvalidInputError,
      `Invalid kind "issues": it ${KIND_RULE}.`,
    );
    throwsWith(() => assertKind(5), InvalidInputError, `Invalid kind 5: it ${KIND_RULE}.`);
    throwsWith(
      () => assertKind("issues.issue/1"),
      InvalidInputError,
      `Invalid kind "issues.issue/1": it ${KIND_RULE}.`,
    );
  });

  await t.step("`KIND_PATTERN` is the rule both apply", () => {
    assert.ok(KIND_PATTERN.test("issues.issue"));
    assert.ok(!KIND_PATTERN.test("issues"));
  });
});

Deno.test("`checkTitle()`, `checkFields()` and `checkContent()` check one value each", async (t) => {
  const key = "issues.issue/1";

  await t.step("`checkTitle()` takes a string of at most 500 characters", () => {
    assert.equal(checkTitle(key, "A title"), "A title");
    assert.equal(checkTitle(key, "🌍".repeat(500)), "🌍".repeat(500));
    throwsWith(
      () => checkTitle(key, "x".repeat(501)),
      PayloadTooLargeError,
      'Record "issues.issue/1": field "title" has 501 characters, at most 500 allowed.',
    );
    for (const [value, described] of [[7, "number"], [null, "null"], [["a"], "an array"]]) {
      throwsWith(
        () => checkTitle(key, value),
        InvalidInputError,
        `Record "issues.issue/1": field "title" must be a string, got ${described}.`,
      );
    }
  });

  await t.step("`checkFields()` takes a plain JSON object and answers a copy", () => {
    const fields = { state: "open", labels: ["bug"], skip: undefined };
    const copy = checkFields(key, fields);
    assert.deepEqual(copy, { state: "open", labels: ["bug"] });
    fields.labels.push("later");
    assert.deepEqual(copy.labels, ["bug"]);
    const bare = Object.create(null);
    bare.a = 1;
    assert.deepEqual(checkFields(key, bare), { a: 1 });
  });

  await t.step("`checkFields()` refuses what is not a plain object", () => {
    for (
      const [value, described] of [
        [[1], "an array"],
        [null, "null"],
        ["x", "string"],
        [new Date(0), "object"],
        [new Map(), "object"],
      ]
    ) {
      throwsWith(
        () => checkFields(key, value),
        InvalidInputError,
        `Record "issues.issue/1": field "fields" must be a JSON object, got ${described}.`,
      );
    }
  });

  await t.step("`checkFields()` refuses what JSON cannot carry", () => {
    throwsWith(
      () => checkFields(key, { big: 1n }),
      InvalidInputError,
      'Record "issues.issue/1": field "fields" is not JSON: Do not know how to serialize a BigInt.',
    );
  });

  await t.step("`checkFields()` takes at most 32 KiB of JSON", () => {
    // `{"t":"…"}` is 8 bytes around the text.
    const fits = { t: "x".repeat(RECORD_LIMITS.maxFieldsBytes - 8) };
    assert.deepEqual(checkFields(key, fits), fits);
    throwsWith(
      () => checkFields(key, { t: "é".repeat(RECORD_LIMITS.maxFieldsBytes / 2) }),
      PayloadTooLargeError,
      'Record "issues.issue/1": field "fields" is 32776 bytes as JSON, at most 32768 allowed.',
    );
  });

  await t.step("`checkContent()` takes a string of at most 512 KiB of UTF-8", () => {
    const max = RECORD_LIMITS.maxContentBytes;
    assert.equal(checkContent(key, "x".repeat(max)).length, max);
    // Few enough characters, though each UTF-16 unit could have been 3 bytes.
    assert.equal(checkContent(key, "x".repeat(200_000)).length, 200_000);
    throwsWith(
      () => checkContent(key, "x".repeat(max + 1)),
      PayloadTooLargeError,
      'Record "issues.issue/1": field "content" is 524289 bytes, at most 524288 allowed.',
    );
    throwsWith(
      () => checkContent(key, "é".repeat(max / 2 + 1)),
      PayloadTooLargeError,
      'Record "issues.issue/1": field "content" is 524290 bytes, at most 524288 allowed.',
    );
    throwsWith(
      () => checkContent(key, { text: "x" }),
      InvalidInputError,
      'Record "issues.issue/1": field "content" must be a string, got object.',
    );
  });
});

Deno.test("`checkRecordInput()` checks a writer's input whole", async (t) => {
  await t.step("answers the key and the values given, checked", () => {
    assert.deepEqual(
      checkRecordInput({
        key: "issues.issue/1",
        title: "T",
        fields: { a: 1 },
        content: "body",
        revision: 0,
      }),
      { key: "issues.issue/1", title: "T", fields: { a: 1 }, content: "body", revision: 0 },
    );
    assert.deepEqual(checkRecordInput({ key: "issues.issue/1" }), { key: "issues.issue/1" });
    assert.deepEqual(checkRecordInput({ key: "issues.issue/1", title: undefined }), {
      key: "issues.issue/1",
    });
  });

  await t.step("refuses what is not a plain object", () => {
    for (
      const [value, described] of [["issues.issue/1", "string"], [null, "null"], [[], "an array"]]
    ) {
      throwsWith(
        () => checkRecordInput(value),
        InvalidInputError,
        `A record write must be an object, got ${described}.`,
      );
    }
  });

  await t.step("checks the key first", () => {
    throwsWith(
      () => checkRecordInput({ body: "x" }),
      InvalidInputError,
      "Record key must be a string, got undefined.",
    );
    throwsWith(
      () => checkRecordInput({ key: "nokind", title: 5 }),
      InvalidInputError,
      'Invalid record key "nokind": it must be "kind/name", and has no "/".',
    );
  });

  await t.step("refuses an unknown field by name", () => {
    throwsWith(
      () => checkRecordInput({ key: "issues.issue/1", body: "x" }),
      InvalidInputError,
      'Record "issues.issue/1": unknown field "body"; a write takes key, title, fields, content ' +
        "and revision.",
    );
  });

  await t.step("checks each value given with its own rule", () => {
    throwsWith(
      () => checkRecordInput({ key: "issues.issue/1", title: 5 }),
      InvalidInputError,
      'Record "issues.issue/1": field "title" must be a string, got number.',
    );
    throwsWith(
      () => checkRecordInput({ key: "issues.issue/1", fields: [] }),
      InvalidInputError,
      'Record "issues.issue/1": field "fields" must be a JSON object, got an array.',
    );
    throwsWith(
      () => checkRecordInput({ key: "issues.issue/1", content: null }),
      InvalidInputError,
      'Record "issues.issue/1": field "content" must be a string, got null.',
    );
  });

  await t.step("takes a revision that is a whole number from 0", () => {
    assert.equal(checkRecordInput({ key: "issues.issue/1", revision: 3 }).revision, 3);
    for (const [revision, described] of [[-1, "number"], [1.5, "number"], ["1", "string"]]) {
      throwsWith(
        () => checkRecordInput({ key: "issues.issue/1", revision }),
        InvalidInputError,
        `Record "issues.issue/1": field "revision" must be a whole number ≥ 0, got ${described}.`,
      );
    }
    throwsWith(
      () => checkRecordInput({ key: "issues.issue/1", revision: 2 ** 53 }),
      InvalidInputError,
      'Record "issues.issue/1": field "revision" must be a whole number ≥ 0, got number.',
    );
  });
});

Deno.test("`checkRecordInput()` refuses an unpaired surrogate in title, content or fields, naming where", async (t) => {
  const why = "text is stored as UTF-8, which cannot hold half a pair.";
  await t.step("in content and title, by character", () => {
    throwsWith(
      () => checkRecordInput({ key: "a.b/1", content: "😀 x\uDFFF" }),
      InvalidInputError,
      `Record "a.b/1": field "content" contains an unpaired surrogate at character 3; ${why}`,
    );
    throwsWith(
      () => checkRecordInput({ key: "a.b/1", title: "\uD83D" }),
      InvalidInputError,
      `Record "a.b/1": field "title" contains an unpaired surrogate at character 0; ${why}`,
    );
  });
  await t.step("in fields, by path, a name as well as a value", () => {
    throwsWith(
      () => checkRecordInput({ key: "a.b/1", fields: { a: { "b c": ["ok", "\uD800"] } } }),
      InvalidInputError,
      `Record "a.b/1": field "fields" contains an unpaired surrogate in fields.a["b c"][1]; ${why}`,
    );
    throwsWith(
      () => checkRecordInput({ key: "a.b/1", fields: { ok: 1, ["\uDC00"]: 2 } }),
      InvalidInputError,
      `Record "a.b/1": field "fields" contains an unpaired surrogate in the name of ` +
        `fields["\\udc00"]; ${why}`,
    );
  });
  await t.step("fields nested as deep as 32 KiB allows are walked", () => {
    const deep = JSON.parse("[".repeat(16_000) + '"\\ud800"' + "]".repeat(16_000));
    assert.throws(() => checkFields("a.b/1", { deep }), /unpaired surrogate in fields\.deep\[0\]/);
  });
  await t.step("whole pairs pass", () => {
    assert.deepEqual(
      checkRecordInput({ key: "a.b/1", title: "😀", content: "😀", fields: { "😀": "😀" } }),
      {
        key: "a.b/1",
        title: "😀",
        content: "😀",
        fields: { "😀": "😀" },
      },
    );
  });
});

Deno.test("`compareRecordKeys()` orders keys as Deno KV does", async (t) => {
  await t.step("by code point, shorter first on a common prefix", () => {
    assert.ok(compareRecordKeys("a.b/1", "a.b/2") < 0);
    assert.ok(compareRecordKeys("a.b/2", "a.b/10") > 0);
    assert.ok(compareRecordKeys("a.b/1", "a.b/10") < 0);
    assert.equal(compareRecordKeys("a.b/é", "a.b/é"), 0);
  });

  await t.step("above U+FFFF, where UTF-16 order disagrees", () => {
    // U+FF5E sorts before U+1F600 by code point; its UTF-16 unit sorts after the surrogate.
    assert.ok("a.b/\uff5e" > "a.b/😀");
    assert.ok(compareRecordKeys("a.b/\uff5e", "a.b/😀") < 0);
  });

  await t.step("the same order as a real KV listing", async () => {
    const keys = ["a.b/😀", "a.b/\uff5e", "a.b/z", "a.b/Z", "a.b/é", "a.b/", "a.b/10", "a.b/1"];
    using kv = await Deno.openKv(":memory:");
    for (const key of keys) await kv.set(["record", key], 1);
    const listed: string[] = [];
    for await (const entry of kv.list({ prefix: ["record"] })) listed.push(entry.key[1] as string);
    assert.deepEqual([...keys].sort(compareRecordKeys), listed);
  });
});

Deno.test("`utf8Bytes()` counts UTF-8 bytes", () => {
  assert.equal(utf8Bytes(""), 0);
  assert.equal(utf8Bytes("abc"), 3);
  assert.equal(utf8Bytes("é😀"), 6);
});
