import assert from "node:assert/strict";
import { join } from "node:path";
import { createApp } from "../../../runtime/web/app.ts";
import type {
  ErrorResponse,
  ExamplesResponse,
  FolderListing,
} from "../../../runtime/web/api/types.ts";
import { testHost } from "../../internal/packages.ts";

const TOKEN = "t".repeat(48);
const ORIGIN = "http://127.0.0.1:4321";
const COOKIE = `sync_token_4321=${TOKEN}`;

Deno.test("`GET /api/folders` lists subfolders inside home and the examples, and nothing outside", async (t) => {
  const env = await testHost();
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "sync-folders-" }));
  try {
    // A person's home with folders, a hidden one, a file, links in and out; and beside it,
    // what must stay unseen: a secret folder and a sibling whose name starts like home's.
    const home = join(root, "home");
    const examples = join(root, "examples");
    const secret = join(root, "secret");
    for (const folder of ["projects/site", ".config", "Notes", examples, secret, `${home}2`]) {
      await Deno.mkdir(folder.startsWith("/") ? folder : join(home, folder), { recursive: true });
    }
    await Deno.writeTextFile(join(home, "todo.txt"), "a file");
    await Deno.writeTextFile(join(secret, "key"), "do not show");
    await Deno.symlink(secret, join(home, "out"));
    await Deno.symlink("/etc", join(home, "etc"));
    await Deno.symlink(join(home, "projects"), join(home, "work"));
    const app = createApp(env.host, { token: TOKEN, port: 4321, browse: { home, examples } });
    const get = (query: string, headers: Record<string, string> = { cookie: COOKIE }) =>
      app.request(`${ORIGIN}/api/folders${query}`, { headers });
    const listing = async (query: string) => {
      const response = await get(query);
      assert.equal(response.status, 200, await response.clone().text());
      return await response.json() as FolderListing;
    };
    const refused = async (query: string, status: number, message: RegExp) => {
      const response = await get(query);
      const body = await response.json() as ErrorResponse;
      assert.equal(response.status, status, `${query}: ${JSON.stringify(body)}`);
      assert.match(body.error, message);
      assert.doesNotMatch(JSON.stringify(body), /do not show|"key"/);
    };

    await t.step(
      "with no path, home: its folders by name, hidden ones and files left out",
      async () => {
        const home0 = await listing("");
        assert.equal(home0.path, home);
        assert.equal(home0.parent, null);
        assert.deepEqual(home0.root, { label: "Home", path: home });
        assert.deepEqual(home0.roots.map((r) => r.label), ["Home", "Bundled examples"]);
        // A link to a folder inside home is a folder; links pointing out are not offered.
        assert.deepEqual(home0.folders.map((f) => f.name), ["Notes", "projects", "work"]);
        assert.equal(home0.folders[1].path, join(home, "projects"));
      },
    );

    await t.step("`hidden=1` shows the folders whose name starts with a dot", async () => {
      const all = await listing("?hidden=1");
      assert.deepEqual(all.folders.map((f) => f.name), [".config", "Notes", "projects", "work"]);
    });

    await t.step("a subfolder's parent is the folder one up; the examples are a root", async () => {
      const projects = await listing(`?path=${encodeURIComponent(join(home, "projects"))}`);
      assert.equal(projects.parent, home);
      assert.deepEqual(projects.folders.map((f) => f.name), ["site"]);
      const through = await listing(`?path=${encodeURIComponent(join(home, "work"))}`);
      assert.equal(through.path, join(home, "projects"), "a link is listed as where it leads");
      const bundled = await listing(`?path=${encodeURIComponent(examples)}`);
      assert.equal(bundled.root.label, "Bundled examples");
      assert.equal(bundled.parent, null);
    });

    await t.step(
      "`..`, links pointing out, absolute paths and encoded segments are refused",
      async () => {
        const outside = /is outside the folders Sync shows: home \(.*\) and bundled examples/;
        await refused(`?path=${encodeURIComponent(`${home}/..`)}`, 403, outside);
        await refused(`?path=${encodeURIComponent(`${home}/projects/../../secret`)}`, 403, outside);
        await refused(`?path=${home}/%2e%2e/secret`, 403, outside);
        await refused(`?path=${home}%2F..%2Fsecret`, 403, outside);
        await refused(`?path=${encodeURIComponent(join(home, "out"))}`, 403, outside);
        await refused(`?path=${encodeURIComponent(join(home, "etc"))}`, 403, outside);
        await refused("?path=/etc", 403, outside);
        await refused("?path=/", 403, outside);
        // Whether something is there is not told outside: a missing folder out there is outside too.
        await refused(`?path=${encodeURIComponent(`${home}/../gone`)}`, 403, outside);
        await refused("?path=/etc/no-such-folder", 403, outside);
        await refused(`?path=${encodeURIComponent(`${home}2`)}`, 403, outside);
        // Encoded twice, the segment is a name, and no folder has it.
        await refused(`?path=${home}/%252e%252e/secret`, 404, /There is no folder at/);
        await refused(`?path=${encodeURIComponent("home/projects")}`, 400, /not an absolute path/);
        await refused(`?path=${encodeURIComponent(`${home}/\0`)}`, 400, /contains a NUL character/);
        await refused(
          `?path=${encodeURIComponent(join(home, "n".repeat(300)))}`,
          400,
          /in the path is too long: 300 bytes, and a folder's name is at most 255/,
        );
        await refused(`?path=${encodeURIComponent(join(home, "todo.txt"))}`, 400, /is a file/);
      },
    );

    await t.step(
      "listFolder() answers the same through a link out, whatever is there",
      async () => {
        const outside = /is outside the folders Sync shows/;
        await refused(`?path=${encodeURIComponent(join(home, "out", "key"))}`, 403, outside);
        await refused(
          `?path=${encodeURIComponent(join(home, "out", "nonexistent"))}`,
          403,
          outside,
        );
        await refused(`?path=${encodeURIComponent(join(home, "out", "a", "b"))}`, 403, outside);
        await refused(
          `?path=${encodeURIComponent(join(home, "missing", "deeper"))}`,
          404,
          /no folder/,
        );
      },
    );

    await t.step("listFolder() keeps the first 1000 subfolders by name", async () => {
      const many = join(home, "many");
      const names = Array.from({ length: 1005 }, (_, i) => `f${String(i).padStart(4, "0")}`);
      for (const name of names) await Deno.mkdir(join(many, name), { recursive: true });
      const listed = await listing(`?path=${encodeURIComponent(many)}`);
      assert.equal(listed.truncated, true);
      assert.deepEqual(listed.folders.map((f) => f.name), names.slice(0, 1000));
    });

    await t.step(
      "resolveRoots() offers no root that is the filesystem's root, saying why",
      async () => {
        await Deno.symlink("/", join(root, "slash"));
        for (const slash of ["/", join(root, "slash")]) {
          const wide = createApp(env.host, {
            token: TOKEN,
            port: 4321,
            browse: { home: slash, examples },
          });
          const response = await wide.request(`${ORIGIN}/api/folders`, {
            headers: { cookie: COOKIE },
          });
          const body = await response.json() as FolderListing;
          assert.equal(response.status, 200, JSON.stringify(body));
          assert.deepEqual(body.roots.map((r) => r.label), ["Bundled examples"]);
          assert.equal(body.path, examples);
          assert.match(
            body.leftOut?.[0] ?? "",
            /^Home \(.*\) is not offered: it is the filesystem's root/,
          );
          const disk = await wide.request(`${ORIGIN}/api/folders?path=/etc`, {
            headers: { cookie: COOKIE },
          });
          await disk.body?.cancel();
          assert.equal(disk.status, 403);
        }
      },
    );

    await t.step("without the installation's token, nothing is listed", async () => {
      const response = await get("", {});
      await response.body?.cancel();
      assert.equal(response.status, 401);
    });
  } finally {
    await env.close();
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("`GET /api/examples` names the bundled examples with their manifests' words", async (t) => {
  const env = await testHost();
  try {
    await t.step(
      "the checkout's `extensions/`: each package by name, with its description",
      async () => {
        const app = createApp(env.host, { token: TOKEN, port: 4321 });
        const response = await app.request(`${ORIGIN}/api/examples`, {
          headers: { cookie: COOKIE },
        });
        assert.equal(response.status, 200);
        const { examples } = await response.json() as ExamplesResponse;
        const hello = examples.find((example) => example.id === "hello");
        const manifest = JSON.parse(
          await Deno.readTextFile(
            new URL("../../../extensions/hello/manifest.json", import.meta.url),
          ),
        );
        assert.ok(hello, JSON.stringify(examples));
        assert.equal(hello.name, manifest.name);
        assert.equal(hello.description, manifest.description);
        assert.equal(
          hello.path,
          await Deno.realPath(new URL("../../../extensions/hello", import.meta.url)),
        );
        assert.deepEqual(
          examples.map((example) => example.name),
          examples.map((example) => example.name).toSorted((a, b) => a.localeCompare(b)),
        );
      },
    );

    await t.step("a folder without a manifest that validates is not offered", async () => {
      const examples = await Deno.makeTempDir({ prefix: "sync-examples-" });
      try {
        await Deno.mkdir(join(examples, "broken"));
        await Deno.writeTextFile(join(examples, "broken", "manifest.json"), "{ not json");
        await Deno.mkdir(join(examples, "empty"));
        const app = createApp(env.host, { token: TOKEN, port: 4321, browse: { examples } });
        const response = await app.request(`${ORIGIN}/api/examples`, {
          headers: { cookie: COOKIE },
        });
        assert.deepEqual(await response.json(), { examples: [] });
      } finally {
        await Deno.remove(examples, { recursive: true });
      }
    });
  } finally {
    await env.close();
  }
});
