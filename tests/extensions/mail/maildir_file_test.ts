import assert from "node:assert/strict";
import { maildirFile } from "../../../extensions/mail/src/maildir_file.ts";
import { junkFolder } from "../../../extensions/mail/src/junk_folder.ts";
import { threadMessages } from "../../../extensions/mail/src/thread_messages.ts";
import { threadKey } from "../../../extensions/mail/src/thread_key.ts";

Deno.test("`maildirFile()` takes messages of cur/ and new/ and names their folder and flags", async (t) => {
  await t.step("the root is INBOX; flags come from :2, sorted", () => {
    const file = maildirFile("cur/1700000000.M1P2Q3.host:2,SRF", 10, 5);
    assert.deepEqual(file, {
      id: "/1700000000.M1P2Q3.host",
      path: "cur/1700000000.M1P2Q3.host:2,SRF",
      folder: "INBOX",
      flags: "FRS",
      size: 10,
      mtime: 5,
    });
  });
  await t.step("new/ and cur/ of the same message share an identity", () => {
    assert.equal(
      maildirFile("new/17.M1.host", 1, 1)?.id,
      maildirFile("cur/17.M1.host:2,S", 1, 1)?.id,
    );
    assert.equal(maildirFile("new/17.M1.host", 1, 1)?.flags, "");
  });
  await t.step("Maildir++ subfolders and nested folders", () => {
    assert.equal(maildirFile(".Lists.deno/cur/1.a:2,S", 1, 1)?.folder, "Lists.deno");
    assert.equal(maildirFile(".Deleted Messages/new/1.a", 1, 1)?.folder, "Deleted Messages");
    assert.equal(maildirFile("Work/Projects/cur/1.a:2,", 1, 1)?.folder, "Work/Projects");
    assert.notEqual(
      maildirFile(".Sent/cur/1.a:2,S", 1, 1)?.id,
      maildirFile("cur/1.a:2,S", 1, 1)?.id,
    );
  });
  await t.step("tmp/, hidden files and folder markers are no messages", () => {
    assert.equal(maildirFile("tmp/1.a", 1, 1), null);
    assert.equal(maildirFile(".Sent/tmp/1.a", 1, 1), null);
    assert.equal(maildirFile("cur/.hidden", 1, 1), null);
    assert.equal(maildirFile(".Sent/maildirfolder", 0, 1), null);
    assert.equal(maildirFile("dovecot-uidlist", 0, 1), null);
    assert.equal(maildirFile(".notmuch/xapian/cur", 0, 1), null);
  });
});

Deno.test("`junkFolder()` knows Spam and Trash by name, whatever the case, and not Promotions", () => {
  for (
    const name of [
      "Spam",
      "Trash",
      "Junk",
      "junk",
      "Deleted Messages",
      "[Gmail].Spam",
      "INBOX.Trash",
    ]
  ) {
    assert.equal(junkFolder(name), true, name);
  }
  for (const name of ["INBOX", "Promotions", "Sent", "Lists.deno", "Spamalot"]) {
    assert.equal(junkFolder(name), false, name);
  }
});

Deno.test("`threadMessages()` links replies by In-Reply-To and References, through missing messages", () => {
  const groups = threadMessages([
    { node: "<a>", parent: null, root: null },
    { node: "<c>", parent: "<b>", root: "<a>" }, // <b> is not in the Maildir
    { node: "<x>", parent: null, root: null },
    { node: "<d>", parent: "<b>", root: null }, // In-Reply-To only
    { node: "<y>", parent: "<x>", root: null },
  ]);
  assert.deepEqual(groups, [[0, 1, 3], [2, 4]]);
});

Deno.test("`threadKey()` is the same for the same root and differs between roots", () => {
  assert.equal(threadKey("<a@b>"), threadKey("<a@b>"));
  assert.notEqual(threadKey("<a@b>"), threadKey("<a@c>"));
  assert.match(threadKey("<a@b>"), /^[0-9a-f]{16}$/);
});
