import assert from "node:assert/strict";
import { MemoryAccess } from "../../runtime/memory/access.ts";
import { InvalidInputError, MemoryAccessError } from "../../runtime/errors.ts";

/** Throws exactly this class and message. */
function throwsWith(run: () => void, type: new (message: string) => Error, message: string): void {
  assert.throws(run, (error: Error) => {
    assert.ok(error instanceof type, `${error.name}: ${error.message}`);
    assert.equal(error.message, message);
    return true;
  });
}

Deno.test("`MemoryAccess` decides which kinds a package reaches", async (t) => {
  const access = new MemoryAccess("issues", ["mail.message", "calendar.event"]);

  await t.step("`canRead()` allows the package's own kinds and published ones", () => {
    assert.equal(access.canRead("issues.issue"), true);
    assert.equal(access.canRead("issues.issue.comment"), true);
    assert.equal(access.canRead("mail.message"), true);
    assert.equal(access.canRead("calendar.event"), true);
  });

  await t.step("`canRead()` refuses others' unpublished kinds and look-alike prefixes", () => {
    assert.equal(access.canRead("mail.draft"), false);
    // The prefix is the id and a dot: another package whose id starts alike is not the package.
    assert.equal(access.canRead("issues-archive.issue"), false);
    assert.equal(access.canRead("issuesx.issue"), false);
    assert.equal(access.canRead("issues"), false);
  });

  await t.step("`assertReadKind()` names the package and the kind it may not read", () => {
    access.assertReadKind("issues.issue");
    access.assertReadKind("mail.message");
    throwsWith(
      () => access.assertReadKind("mail.draft"),
      MemoryAccessError,
      "issues cannot read kind mail.draft: it is not issues's own and no installed package " +
        "publishes it",
    );
  });

  await t.step("`assertReadKey()` reads the kind from the key", () => {
    access.assertReadKey("issues.issue/142");
    access.assertReadKey("mail.message/a/b");
    throwsWith(
      () => access.assertReadKey("mail.draft/1"),
      MemoryAccessError,
      "issues cannot read kind mail.draft: it is not issues's own and no installed package " +
        "publishes it",
    );
  });

  await t.step("`assertWriteKey()` allows only the package's own prefix, published or not", () => {
    access.assertWriteKey("issues.issue/142");
    throwsWith(
      () => access.assertWriteKey("mail.message/1"),
      MemoryAccessError,
      'issues cannot write mail.message/1: a package may write only kinds under "issues."',
    );
    throwsWith(
      () => access.assertWriteKey("issues-archive.issue/1"),
      MemoryAccessError,
      'issues cannot write issues-archive.issue/1: a package may write only kinds under "issues."',
    );
  });

  await t.step("`assertWriteKey()` words the refusal with the verb it is given", () => {
    throwsWith(
      () => access.assertWriteKey("mail.message/1", "remove"),
      MemoryAccessError,
      'issues cannot remove mail.message/1: a package may remove only kinds under "issues."',
    );
  });

  await t.step("a malformed key is refused as input before access is decided", () => {
    throwsWith(
      () => access.assertReadKey("no-slash"),
      InvalidInputError,
      'Invalid record key "no-slash": it must be "kind/name", and has no "/".',
    );
    throwsWith(
      () => access.assertWriteKey("mail.message/"),
      InvalidInputError,
      'Invalid record key "mail.message/": the name after the kind is empty.',
    );
  });

  await t.step("the published kinds are copied when the access is made", () => {
    const published = new Set(["mail.message"]);
    const copied = new MemoryAccess("issues", published);
    published.add("mail.draft");
    published.delete("mail.message");
    assert.equal(copied.canRead("mail.message"), true);
    assert.equal(copied.canRead("mail.draft"), false);
  });

  await t.step("with nothing published, only the package's own kinds are readable", () => {
    const alone = new MemoryAccess("mail", []);
    assert.equal(alone.canRead("mail.message"), true);
    assert.equal(alone.canRead("issues.issue"), false);
  });
});
