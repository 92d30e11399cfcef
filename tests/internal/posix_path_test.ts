import assert from "node:assert/strict";
import * as node from "node:path";
import { dirname, isAbsolute, isRoot, join, resolve } from "../../runtime/internal/posix_path.ts";

/** Paths as Sync meets them, and the odd ones a person may type. */
const PATHS = [
  "/",
  "//",
  "/a",
  "/a/",
  "/a/b/c",
  "/a//b/./c/..",
  "/a/b/../../..",
  "a",
  "a/b/",
  "./a",
  "../a/b",
  "a/../..",
  ".",
  "..",
  "/home/ada/site/.sync/extensions.json",
  "/tmp/sync home/é/x",
];

Deno.test("the posix path functions answer as `node:path`'s do", async (t) => {
  await t.step("`isAbsolute()`", () => {
    for (const path of [...PATHS, ""]) assert.equal(isAbsolute(path), node.isAbsolute(path), path);
  });

  await t.step("`join()`", () => {
    for (const a of PATHS) {
      for (const b of ["x", "x/y", "..", ".sync", "owner.lock", ""]) {
        assert.equal(join(a, b), node.join(a, b), `${a} + ${b}`);
      }
    }
    assert.equal(join("/home/ada", ".local", "share", "sync"), "/home/ada/.local/share/sync");
    assert.equal(join(""), node.join(""));
  });

  await t.step("`resolve()`", () => {
    for (const a of PATHS) {
      for (const b of ["x", "../y", "/abs", ".", ""]) {
        assert.equal(resolve(a, b), node.resolve(a, b), `${a} + ${b}`);
      }
      assert.equal(resolve(a), node.resolve(a), a);
    }
    assert.equal(resolve(), node.resolve());
  });

  await t.step("`dirname()`", () => {
    for (const path of PATHS) assert.equal(dirname(path), node.dirname(path), path);
  });

  await t.step("`isRoot()` holds for the root only", () => {
    for (const path of PATHS.filter(isAbsolute)) {
      assert.equal(isRoot(path), node.parse(path).root === path, path);
    }
  });
});
