import assert from "node:assert/strict";
import { gzipSync } from "fflate";
import {
  readArchive,
  stripCommonFolder,
  writeArchiveEntries,
} from "../../../runtime/packages/archive/archive.ts";
import type { ArchiveEntry } from "../../../runtime/packages/archive/entry_list.ts";
import { ArchiveError } from "../../../runtime/errors.ts";
import {
  concat,
  gnuLongNameSpec,
  gzipBomb,
  gzipBombOfEntries,
  patch,
  paxSpec,
  renameInZip,
  setTarChecksum,
  tar,
  tarEntry,
  tarGz,
  tarHeader,
  type TarSpec,
  zip,
  zipBomb,
  zipHeaders,
  type ZipSpec,
} from "../../internal/archive_fixtures.ts";

const MIB = 1024 * 1024;
const encoder = new TextEncoder();

/** Every byte value, so nothing along the way may treat file data as text. */
const BINARY = Uint8Array.from({ length: 1024 }, (_, i) => i % 256);
const LONG_PATH = `package/src/${"deeply-nested-folder/".repeat(6)}module.ts`;

const GOOD_TAR: TarSpec[] = [
  { name: "package/", type: "5" },
  { name: "package/manifest.json", data: '{"id":"issues"}\n' },
  { name: "package/bin/run.sh", data: "#!/bin/sh\necho hi\n", mode: 0o755 },
  { name: "package/blob.bin", data: BINARY },
  { name: "package/empty.txt" },
  // The entry after a pax header takes its name from the pax `path`.
  paxSpec({ path: LONG_PATH, mtime: "1700000000.5" }),
  { name: "short-legacy-name.ts", data: "export {};\n" },
];

const GOOD_ZIP: ZipSpec[] = [
  { name: "package/" },
  { name: "package/manifest.json", data: '{"id":"issues"}\n' },
  { name: "package/bin/run.sh", data: "#!/bin/sh\necho hi\n", mode: 0o100755 },
  { name: "package/blob.bin", data: BINARY },
  { name: "package/empty.txt" },
  { name: LONG_PATH, data: "export {};\n" },
];

/** What the good archives hold once `package/` is stripped. */
const EXPECTED_FILES: Record<string, { data: Uint8Array; executable: boolean }> = {
  "manifest.json": { data: encoder.encode('{"id":"issues"}\n'), executable: false },
  "bin/run.sh": { data: encoder.encode("#!/bin/sh\necho hi\n"), executable: true },
  "blob.bin": { data: BINARY, executable: false },
  "empty.txt": { data: new Uint8Array(0), executable: false },
  [LONG_PATH.slice("package/".length)]: { data: encoder.encode("export {};\n"), executable: false },
};

/** Asserts `fn` throws an ArchiveError whose message holds every substring. */
function assertRefused(fn: () => unknown, ...substrings: string[]): void {
  assert.throws(fn, (error: unknown) => {
    assert.ok(error instanceof ArchiveError, `expected an ArchiveError, got ${error}`);
    for (const substring of substrings) {
      assert.ok(
        error.message.includes(substring),
        `${JSON.stringify(error.message)} should include ${JSON.stringify(substring)}`,
      );
    }
    return true;
  });
}

/** Runs `fn` in a fresh temporary folder that is removed afterwards. */
async function inTempDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "archive_test_" });
  try {
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** Unpacks `bytes` through the whole path and checks every file landed exactly. */
async function assertRoundTrip(bytes: Uint8Array, name: string): Promise<void> {
  const entries = stripCommonFolder(readArchive(bytes, name));
  await inTempDir(async (tmp) => {
    const out = `${tmp}/store/issues/1.0.0`;
    await writeArchiveEntries(entries, out);
    for (const [path, expected] of Object.entries(EXPECTED_FILES)) {
      assert.deepEqual(await Deno.readFile(`${out}/${path}`), expected.data, path);
      const { mode } = await Deno.stat(`${out}/${path}`);
      assert.equal(((mode ?? 0) & 0o111) !== 0, expected.executable, `${path} executable bit`);
    }
    const files = entries.filter((entry) => entry.kind === "file").map((entry) => entry.path);
    assert.deepEqual(files.sort(), Object.keys(EXPECTED_FILES).sort());
    assert.deepEqual(
      [...Deno.readDirSync(`${tmp}/store/issues`)].map((entry) => entry.name),
      ["1.0.0"],
      "no temporary folder is left beside the package",
    );
  });
}

Deno.test("`readArchive()` reads good archives", async (t) => {
  await t.step("`readArchive()` reads a tar.gz, and its files land with exact bytes", async () => {
    await assertRoundTrip(tarGz(GOOD_TAR), "issues-1.0.0.tgz");
  });

  await t.step("`readArchive()` reads a plain tar", async () => {
    await assertRoundTrip(tar(GOOD_TAR), "issues-1.0.0.tar");
  });

  await t.step("`readArchive()` reads a zip, keeping the executable bit", async () => {
    await assertRoundTrip(zip(GOOD_ZIP), "issues-1.0.0.zip");
  });

  await t.step("`readArchive()` tells the format from the bytes, not the name", async () => {
    await assertRoundTrip(tarGz(GOOD_TAR), "issues-1.0.0.zip");
    await assertRoundTrip(zip(GOOD_ZIP), "issues-1.0.0.tgz");
  });

  await t.step("`readArchive()` reads ustar prefixes, GNU long names and `./` paths", () => {
    const longName = `a/${"b".repeat(120)}.txt`;
    const entries = readArchive(
      tar([
        paxSpec({ comment: "ignored" }, "g"),
        { name: "./", type: "5" },
        { name: "file.txt", prefix: "./some/folder", data: "p" },
        gnuLongNameSpec(longName),
        { name: "././@LongLink-truncated", data: "g", magic: "gnu" },
        { name: "./x//y/./z.txt", data: "n" },
      ]),
      "mixed.tar",
    );
    assert.deepEqual(
      entries.map((entry) => entry.path),
      ["some/folder/file.txt", longName, "x/y/z.txt"],
    );
  });

  await t.step("`readArchive()` accepts a tar that ends with a single zero block", () => {
    const bytes = concat([tarEntry({ name: "a.txt", data: "a" }), new Uint8Array(512)]);
    assert.equal(readArchive(bytes, "short-end.tar").length, 1);
  });
});

Deno.test("`readArchive()` refuses hostile tar entries", async (t) => {
  const refusesTar = (parts: (TarSpec | Uint8Array)[], ...substrings: string[]) => {
    assertRefused(() => readArchive(tar(parts), "evil-1.0.0.tar"), "evil-1.0.0.tar", ...substrings);
  };

  await t.step("`readArchive()` refuses a `../` path", () => {
    refusesTar(
      [{ name: "../evil.sh", data: "x" }],
      'Cannot unpack evil-1.0.0.tar: entry "../evil.sh" escapes the package folder',
    );
  });

  await t.step("`readArchive()` refuses a `..` segment deep in a path", () => {
    refusesTar([{ name: "a/b/../../../evil.sh", data: "x" }], '"a/b/../../../evil.sh" escapes');
  });

  await t.step("`readArchive()` refuses an absolute path", () => {
    refusesTar([{ name: "/etc/cron.d/evil", data: "x" }], '"/etc/cron.d/evil" has an absolute');
  });

  await t.step("`readArchive()` refuses a Windows drive path", () => {
    refusesTar([{ name: "C:\\evil.bat", data: "x" }], '"C:\\\\evil.bat" has an absolute path');
  });

  await t.step("`readArchive()` refuses a UNC path", () => {
    refusesTar([{ name: "\\\\server\\share\\x", data: "x" }], "has an absolute path");
  });

  await t.step("`readArchive()` refuses a backslash in a name", () => {
    refusesTar([{ name: "a\\..\\..\\evil", data: "x" }], '"a\\\\..\\\\..\\\\evil" has a backslash');
  });

  await t.step("`readArchive()` refuses a control character in a name", () => {
    refusesTar([{ name: "bad\u001bname", data: "x" }], '"bad\\u001bname" has a NUL or control');
  });

  await t.step("`readArchive()` refuses a NUL in a pax path", () => {
    refusesTar(
      [paxSpec({ path: "ok.txt\u0000../../evil" }), { name: "ok.txt", data: "x" }],
      '"ok.txt\\u0000../../evil" has a NUL or control character',
    );
  });

  await t.step("`readArchive()` refuses a symlink", () => {
    refusesTar(
      [{ name: "link", type: "2", linkname: "/etc/passwd" }],
      '"link" is a symbolic link; only files and folders are accepted',
    );
  });

  await t.step("`readArchive()` refuses a hardlink", () => {
    refusesTar([{ name: "hard", type: "1", linkname: "../outside" }], '"hard" is a hard link');
  });

  await t.step("`readArchive()` refuses a character device", () => {
    refusesTar([{ name: "null", type: "3" }], '"null" is a character device');
  });

  await t.step("`readArchive()` refuses a block device", () => {
    refusesTar([{ name: "sda", type: "4" }], '"sda" is a block device');
  });

  await t.step("`readArchive()` refuses a fifo", () => {
    refusesTar([{ name: "pipe", type: "6" }], '"pipe" is a FIFO');
  });

  await t.step("`readArchive()` refuses any other tar type", () => {
    refusesTar(
      [{ name: "contig", type: "7", data: "x" }],
      '"contig" has the unsupported tar type "7"',
    );
    refusesTar([{ name: "sparse", type: "S", data: "x" }], '"sparse" has the unsupported tar type');
  });

  await t.step("`readArchive()` refuses a pax sparse file", () => {
    refusesTar(
      [paxSpec({ "GNU.sparse.major": "1", "GNU.sparse.minor": "0" }), { name: "s", data: "x" }],
      '"s" is a sparse file',
    );
  });

  await t.step("`readArchive()` refuses an escape hidden in a pax path", () => {
    refusesTar(
      [paxSpec({ path: "../../.bashrc" }), { name: "innocent.txt", data: "x" }],
      '"../../.bashrc" escapes the package folder',
    );
  });

  await t.step("`readArchive()` refuses an escape hidden in a GNU long name", () => {
    refusesTar(
      [gnuLongNameSpec("../../evil.sh"), { name: "innocent.txt", data: "x", magic: "gnu" }],
      '"../../evil.sh" escapes',
    );
  });

  await t.step("`readArchive()` refuses an escape hidden in a ustar prefix", () => {
    refusesTar([{ name: "evil.sh", prefix: "..", data: "x" }], '"../evil.sh" escapes');
  });

  await t.step("`readArchive()` refuses a pax path longer than any package needs", () => {
    const long = `${"a/".repeat(600)}x`;
    refusesTar([paxSpec({ path: long }), { name: "x", data: "x" }], "has a path longer than");
  });

  await t.step("`readArchive()` refuses a duplicate path", () => {
    refusesTar(
      [{ name: "a.txt", data: "1" }, { name: "a.txt", data: "2" }],
      '"a.txt" appears twice',
    );
  });

  await t.step("`readArchive()` refuses a duplicate that differs by a `./` prefix", () => {
    refusesTar(
      [{ name: "a.txt", data: "1" }, { name: "./a.txt", data: "2" }],
      '"./a.txt" appears twice (as "a.txt")',
    );
  });

  await t.step("`readArchive()` refuses a file and a folder at the same path", () => {
    refusesTar(
      [{ name: "a", data: "1" }, { name: "a/", type: "5" }],
      '"a/" is both a file and a folder',
    );
  });

  await t.step("`readArchive()` refuses an entry under a file", () => {
    refusesTar(
      [{ name: "a", data: "1" }, { name: "a/b.txt", data: "2" }],
      '"a/b.txt" sits under "a", which is a file',
    );
  });

  await t.step("`readArchive()` refuses entries over the entry-count cap", () => {
    const parts = ["a", "b", "c"].map((name) => ({ name, data: name }));
    assertRefused(
      () => readArchive(tar(parts), "many.tar", { maxEntries: 2 }),
      'Cannot unpack many.tar: entry "c" is past the limit of 2 entries',
    );
  });

  await t.step("`readArchive()` refuses a total unpacked size over the cap", () => {
    const parts = [{ name: "a", data: "x".repeat(600) }, { name: "b", data: "y".repeat(600) }];
    assertRefused(
      () => readArchive(tar(parts), "big.tar", { maxUnpackedBytes: 1000 }),
      '"b" brings the unpacked size past the 1000 bytes limit',
    );
  });

  await t.step("`readArchive()` refuses a header with a bad checksum", () => {
    const header = tarHeader({ name: "a.txt", data: "x" });
    header[0] = "b".charCodeAt(0);
    refusesTar([header, concat([encoder.encode("x"), new Uint8Array(511)])], '"b.txt"', "checksum");
  });

  await t.step("`readArchive()` refuses a header with a malformed size", () => {
    const header = tarHeader({ name: "odd.bin", data: "x" });
    header.set(encoder.encode("00000000x01"), 124);
    setTarChecksum(header);
    refusesTar([header, new Uint8Array(512)], '"odd.bin" has a corrupt tar header (bad number)');
  });

  await t.step("`readArchive()` refuses a truncated tar", () => {
    const whole = tar([{ name: "big.bin", data: BINARY }]);
    assertRefused(() => readArchive(whole.subarray(0, 900), "cut.tar"), '"big.bin" is truncated');
    const noEnd = tar([{ name: "a.txt", data: "x" }], false);
    assertRefused(() => readArchive(noEnd, "cut.tar"), "cut.tar", "truncated");
  });

  await t.step("`readArchive()` refuses a symlink inside a tar.gz", () => {
    assertRefused(
      () => readArchive(tarGz([{ name: "link", type: "2", linkname: "/" }]), "evil.tgz"),
      'Cannot unpack evil.tgz: entry "link" is a symbolic link',
    );
  });
});

Deno.test("`readArchive()` refuses hostile zip entries", async (t) => {
  const refusesZip = (bytes: Uint8Array, ...substrings: string[]) => {
    assertRefused(() => readArchive(bytes, "evil-1.0.0.zip"), "evil-1.0.0.zip", ...substrings);
  };

  await t.step("`readArchive()` refuses a `../` path in a zip", () => {
    refusesZip(
      zip([{ name: "../evil.sh", data: "x" }]),
      'Cannot unpack evil-1.0.0.zip: entry "../evil.sh" escapes the package folder',
    );
  });

  await t.step("`readArchive()` refuses an absolute path in a zip", () => {
    refusesZip(zip([{ name: "/tmp/evil", data: "x" }]), '"/tmp/evil" has an absolute path');
  });

  await t.step("`readArchive()` refuses a backslash path in a zip", () => {
    refusesZip(zip([{ name: "..\\evil.bat", data: "x" }]), '"..\\\\evil.bat" has a backslash');
  });

  await t.step("`readArchive()` refuses a NUL in a zip name", () => {
    refusesZip(zip([{ name: "a\u0000b", data: "x" }]), '"a\\u0000b" has a NUL or control');
  });

  await t.step("`readArchive()` refuses a symlink in a zip", () => {
    refusesZip(
      zip([{ name: "link", data: "/etc/passwd", mode: 0o120777 }]),
      '"link" is a symbolic link; only files and folders are accepted',
    );
  });

  await t.step("`readArchive()` refuses a fifo and devices in a zip", () => {
    refusesZip(zip([{ name: "pipe", mode: 0o010644 }]), '"pipe" is a FIFO');
    refusesZip(zip([{ name: "tty", mode: 0o020644 }]), '"tty" is a character device');
    refusesZip(zip([{ name: "sda", mode: 0o060644 }]), '"sda" is a block device');
  });

  await t.step("`readArchive()` refuses an encrypted zip entry", () => {
    const bytes = zip([{ name: "secret.txt", data: "x" }]);
    const { local, central } = zipHeaders(bytes, "secret.txt");
    patch(bytes, local + 6, 2, 1);
    patch(bytes, central + 8, 2, 1);
    refusesZip(bytes, '"secret.txt" is encrypted');
  });

  await t.step("`readArchive()` refuses a duplicate path in a zip", () => {
    const bytes = zip([{ name: "a.txt", data: "1" }, { name: "b.txt", data: "2" }]);
    renameInZip(bytes, "b.txt", "a.txt");
    refusesZip(bytes, '"a.txt" appears twice');
  });

  await t.step("`readArchive()` refuses a zip duplicate that differs by a `./` prefix", () => {
    refusesZip(
      zip([{ name: "a.txt", data: "1" }, { name: "./a.txt", data: "2" }]),
      '"./a.txt" appears twice (as "a.txt")',
    );
  });

  await t.step("`readArchive()` refuses a file and a folder at the same path in a zip", () => {
    refusesZip(zip([{ name: "a", data: "1" }, { name: "a/" }]), '"a/" is both a file and a folder');
  });

  await t.step("`readArchive()` refuses zip entries over the entry-count cap", () => {
    const bytes = zip(["a", "b", "c"].map((name) => ({ name, data: name })));
    assertRefused(
      () => readArchive(bytes, "many.zip", { maxEntries: 2 }),
      'Cannot unpack many.zip: entry "c" is past the limit of 2 entries',
    );
  });

  await t.step("`readArchive()` refuses a zip over the unpacked cap before inflating", () => {
    const bytes = zip([{ name: "a", data: "x".repeat(600) }, { name: "b", data: "y".repeat(600) }]);
    assertRefused(
      () => readArchive(bytes, "big.zip", { maxUnpackedBytes: 1000 }),
      '"b" brings the unpacked size past the 1000 bytes limit',
    );
  });

  await t.step("`readArchive()` refuses an unknown zip compression method", () => {
    const bytes = zip([{ name: "a.txt", data: "x".repeat(100) }]);
    const { local, central } = zipHeaders(bytes, "a.txt");
    patch(bytes, local + 8, 2, 12);
    patch(bytes, central + 10, 2, 12);
    refusesZip(bytes, '"a.txt" uses compression method 12');
  });

  await t.step(
    "`readArchive()` refuses a zip whose local name differs from the central one",
    () => {
      const bytes = zip([{ name: "safe.txt", data: "x" }]);
      bytes.set(encoder.encode("../x.sh"), zipHeaders(bytes, "safe.txt").local + 30);
      refusesZip(bytes, '"safe.txt" has a local header that names another file');
    },
  );

  await t.step("`readArchive()` refuses a zip entry with a bad CRC", () => {
    const bytes = zip([{ name: "a.txt", data: "hello" }]);
    const { central } = zipHeaders(bytes, "a.txt");
    patch(bytes, central + 16, 4, 0xdeadbeef);
    refusesZip(bytes, '"a.txt" is corrupt (CRC mismatch)');
  });

  await t.step("`readArchive()` refuses a truncated zip", () => {
    const bytes = zip([{ name: "a.txt", data: BINARY }]);
    refusesZip(bytes.subarray(0, bytes.length - 10), "truncated");
  });

  await t.step("`readArchive()` refuses a zip entry that stops short of its declared size", () => {
    const bytes = zip([{ name: "a.bin", data: BINARY }]);
    const { local, central } = zipHeaders(bytes, "a.bin");
    patch(bytes, local + 22, 4, BINARY.length + 1);
    patch(bytes, central + 24, 4, BINARY.length + 1);
    refusesZip(bytes, '"a.bin" is corrupt');
  });
});

Deno.test("`readArchive()` refuses bombs and broken archives", async (t) => {
  await t.step("`readArchive()` refuses an unknown format, naming the accepted ones", () => {
    assertRefused(
      () => readArchive(encoder.encode("just text, not an archive"), "notes.tgz"),
      "Cannot unpack notes.tgz",
      ".tar.gz/.tgz",
      ".tar and .zip",
    );
  });

  await t.step("`readArchive()` refuses an archive over the compressed cap", () => {
    assertRefused(
      () => readArchive(zip([{ name: "a", data: BINARY }]), "fat.zip", { maxArchiveBytes: 100 }),
      "Cannot unpack fat.zip: the archive is",
      "over the 100 bytes limit",
    );
  });

  await t.step("`readArchive()` refuses a gzip that holds no tar", () => {
    assertRefused(
      () =>
        readArchive(gzipBomb(new Uint8Array(0), 200, 200 * MIB), "zeros.tgz", {
          maxUnpackedBytes: 256 * MIB,
        }),
      "zeros.tgz",
      "does not hold a tar archive",
    );
  });

  await t.step("`readArchive()` refuses a gzip bomb from its declared length", () => {
    const bomb = gzipBomb(tarHeader({ name: "zeros.bin", size: 200 * MIB }), 200, 200 * MIB + 512);
    assertRefused(
      () => readArchive(bomb, "bomb.tgz"),
      "bomb.tgz",
      "declares 200 MiB unpacked, over the 128 MiB limit",
    );
  });

  await t.step("`readArchive()` refuses a gzip bomb that lies about its length", () => {
    const bomb = gzipBomb(tarHeader({ name: "zeros.bin", size: 200 * MIB }), 200, 1024);
    assertBounded(() =>
      assertRefused(
        () => readArchive(bomb, "bomb.tgz"),
        'Cannot unpack bomb.tgz: entry "zeros.bin" brings the unpacked size past the 128 MiB limit',
      )
    );
  });

  await t.step("`readArchive()` stops a gzip bomb of many entries at the cap", () => {
    const bomb = gzipBombOfEntries(200);
    assertBounded(() =>
      assertRefused(
        () => readArchive(bomb, "bomb.tgz", { maxUnpackedBytes: 8 * MIB }),
        '"zeros-8.bin" brings the unpacked size past the 8 MiB limit',
      )
    );
  });

  await t.step("`readArchive()` refuses a zip bomb from its declared size", () => {
    assertRefused(
      () => readArchive(zipBomb("zeros.bin", 200, 200 * MIB), "bomb.zip"),
      '"zeros.bin" brings the unpacked size past the 128 MiB limit',
    );
  });

  await t.step("`readArchive()` stops a zip bomb that lies about its size", () => {
    const bomb = zipBomb("zeros.bin", 200, 1024);
    assertBounded(() =>
      assertRefused(
        () => readArchive(bomb, "bomb.zip"),
        '"zeros.bin" inflates past its declared size of 1024 bytes',
      )
    );
  });

  await t.step("`readArchive()` refuses a truncated tar.gz", () => {
    const bytes = tarGz([{ name: "a.bin", data: BINARY }, { name: "b.bin", data: BINARY }]);
    const cut = bytes.subarray(0, bytes.length - 40);
    assertRefused(() => readArchive(cut, "cut.tgz"), "cut.tgz", "truncated");
    // With a cap the garbage "trailer" cannot exceed, inflating finds the cut.
    assertRefused(
      () => readArchive(cut, "cut.tgz", { maxUnpackedBytes: 2 ** 32 }),
      "Cannot unpack cut.tgz: the gzip data is corrupt or truncated",
    );
  });

  await t.step("`readArchive()` refuses a tar.gz whose checksum does not match", () => {
    const bytes = tarGz([{ name: "a.txt", data: "hello" }]);
    bytes[bytes.length - 8] ^= 0xff;
    assertRefused(() => readArchive(bytes, "bad.tgz"), "bad.tgz", "checksum");
  });

  await t.step("`readArchive()` refuses a tar.gz followed by a flood of trailing data", () => {
    const bytes = concat([tar([{ name: "a.txt", data: "x" }]), new Uint8Array(2 * MIB)]);
    assertRefused(
      () => readArchive(gzipSync(bytes), "padded.tgz"),
      "padded.tgz",
      "after the tar end",
    );
  });
});

/**
 * Runs `fn` and asserts the process did not grow by anything like the 200 MiB
 * a bomb would inflate to: the reader must stop long before.
 */
function assertBounded(fn: () => void): void {
  const before = Deno.memoryUsage().rss;
  fn();
  const grown = Deno.memoryUsage().rss - before;
  assert.ok(grown < 64 * MIB, `memory grew by ${Math.round(grown / MIB)} MiB`);
}

Deno.test("`writeArchiveEntries()` writes atomically", async (t) => {
  const entries: ArchiveEntry[] = [
    { path: "a.txt", kind: "file", data: encoder.encode("a"), executable: false },
    { path: "sub", kind: "dir", data: new Uint8Array(0), executable: false },
    { path: "sub/b.txt", kind: "file", data: encoder.encode("b"), executable: false },
  ];

  await t.step("`writeArchiveEntries()` refuses a folder that exists", async () => {
    await inTempDir(async (tmp) => {
      await Deno.writeTextFile(`${tmp}/keep.txt`, "mine");
      await assert.rejects(
        () => writeArchiveEntries(entries, tmp),
        (error: unknown) =>
          error instanceof ArchiveError && error.message.includes("already exists"),
      );
      assert.equal(await Deno.readTextFile(`${tmp}/keep.txt`), "mine");
      assert.deepEqual([...Deno.readDirSync(tmp)].map((entry) => entry.name), ["keep.txt"]);
    });
  });

  await t.step("`writeArchiveEntries()` leaves nothing behind when it fails midway", async () => {
    await inTempDir(async (tmp) => {
      const failing = {
        path: "sub/c.txt",
        kind: "file",
        executable: false,
        get data(): Uint8Array {
          throw new Error("disk full");
        },
      } as ArchiveEntry;
      await assert.rejects(() => writeArchiveEntries([...entries, failing], `${tmp}/pkg`), {
        message: "disk full",
      });
      assert.deepEqual([...Deno.readDirSync(tmp)], [], "neither the folder nor its temp is left");
    });
  });

  await t.step("`writeArchiveEntries()` refuses hostile entries built by hand", async () => {
    await inTempDir(async (tmp) => {
      const cases: [ArchiveEntry[], string][] = [
        [[{ ...entries[0], path: "../escape.txt" }], '"../escape.txt" escapes'],
        [[{ ...entries[0], path: "/abs.txt" }], '"/abs.txt" has an absolute path'],
        [[{ ...entries[0], path: "./a.txt" }], '"./a.txt" does not have a normalised path'],
        [[entries[0], entries[0]], '"a.txt" appears twice'],
        [[entries[0], { ...entries[2], path: "a.txt/b" }], '"a.txt/b" sits under "a.txt"'],
      ];
      for (const [hostile, message] of cases) {
        await assert.rejects(
          () => writeArchiveEntries(hostile, `${tmp}/pkg`),
          (error: unknown) => error instanceof ArchiveError && error.message.includes(message),
        );
      }
      assert.deepEqual([...Deno.readDirSync(tmp)], []);
    });
  });
});

Deno.test("`stripCommonFolder()` drops one shared top-level folder", async (t) => {
  const file = (path: string): ArchiveEntry => ({
    path,
    kind: "file",
    data: new Uint8Array(0),
    executable: false,
  });
  const dir = (path: string): ArchiveEntry => ({ ...file(path), kind: "dir" });

  await t.step("`stripCommonFolder()` strips `package/`", () => {
    const stripped = stripCommonFolder([dir("package"), file("package/a"), file("package/b/c")]);
    assert.deepEqual(stripped.map((entry) => entry.path), ["a", "b/c"]);
  });

  await t.step("`stripCommonFolder()` strips a folder that has no entry of its own", () => {
    assert.deepEqual(stripCommonFolder([file("x/a"), file("x/b")]).map((e) => e.path), ["a", "b"]);
  });

  await t.step("`stripCommonFolder()` keeps two top-level folders", () => {
    const entries = [file("a/x"), file("b/y")];
    assert.equal(stripCommonFolder(entries), entries);
  });

  await t.step("`stripCommonFolder()` keeps a top-level file", () => {
    const entries = [file("package/a"), file("README.md")];
    assert.equal(stripCommonFolder(entries), entries);
  });

  await t.step("`stripCommonFolder()` keeps a lone top-level file or empty folder", () => {
    const lone = [file("manifest.json")];
    assert.equal(stripCommonFolder(lone), lone);
    const empty = [dir("package")];
    assert.equal(stripCommonFolder(empty), empty);
  });
});
