import assert from "node:assert/strict";
import {
  approvablePermissions,
  commandLine,
  processPermission,
} from "../../runtime/packages/approvable_permissions.ts";
import { PERMISSIONS, validateManifest } from "../../runtime/packages/manifest.ts";
import { describePermission } from "../../runtime/packages/permission_text.ts";
import { widenedPermissions } from "../../runtime/packages/approval.ts";

const manifest = (processes: unknown[]) =>
  validateManifest({
    id: "tools",
    name: "Tools",
    version: "1.0.0",
    description: "Runs tools",
    permissions: ["background", "host.processes"],
    service: "service/index.js",
    handlers: { "tools.ping": { description: "Pings" } },
    host: { processes },
  }, "manifest.json");

Deno.test("`commandLine()` shows a command as a shell reads it, never two alike", async (t) => {
  await t.step("plain words stay as they are", () => {
    assert.equal(commandLine("node", ["server.js", "--port=3000"]), "node server.js --port=3000");
  });

  await t.step("a word with spaces, quotes or shell characters is quoted", () => {
    assert.equal(commandLine("sh", ["-c", "echo hi; rm x"]), "sh -c 'echo hi; rm x'");
    assert.equal(commandLine("echo", ["it's"]), `echo 'it'\\''s'`);
    assert.equal(commandLine("echo", [""]), "echo ''");
    assert.equal(commandLine("ls", ["~"]), "ls '~'");
  });

  await t.step("one argument with a space differs from two arguments", () => {
    assert.notEqual(commandLine("a", ["b c"]), commandLine("a", ["b", "c"]));
  });
});

Deno.test("`approvablePermissions()` adds one entry per declared program", async (t) => {
  await t.step("each program's id, program and arguments are named", () => {
    const declared = manifest([
      { id: "lsp", program: "typescript-language-server", args: ["--stdio"] },
      { id: "shell", program: "sh" },
    ]);
    assert.deepEqual(approvablePermissions(declared), [
      "background",
      "host.processes",
      "process:lsp typescript-language-server --stdio",
      "process:shell sh",
    ]);
    assert.equal(
      processPermission({ id: "x", program: "sh", args: ["-c", "a b"] }),
      "process:x sh -c 'a b'",
    );
  });

  await t.step("a program added or changed widens an approval of host.processes", () => {
    const approved = approvablePermissions(manifest([{ id: "lsp", program: "lsp", args: ["-a"] }]));
    const added = manifest([
      { id: "lsp", program: "lsp", args: ["-a"] },
      { id: "curl", program: "curl" },
    ]);
    assert.deepEqual(widenedPermissions(approved, approvablePermissions(added)), [
      "process:curl curl",
    ]);
    const changed = manifest([{ id: "lsp", program: "lsp", args: ["-a", "--eval"] }]);
    assert.deepEqual(widenedPermissions(approved, approvablePermissions(changed)), [
      "process:lsp lsp -a --eval",
    ]);
    const same = manifest([{ id: "lsp", program: "lsp", args: ["-a"] }]);
    assert.deepEqual(widenedPermissions(approved, approvablePermissions(same)), []);
  });
});

Deno.test("`describePermission()` says a declared program has full user access", () => {
  assert.equal(
    describePermission("process:lsp typescript-language-server --stdio"),
    "full user access: may run typescript-language-server --stdio as you, and that program " +
      "may read, change and send anything you can",
  );
  assert.match(describePermission("host.processes"), /each with full user access/);
});

Deno.test("`describePermission()` says what a device's account lets it reach", async (t) => {
  await t.step("a folder is read only", () => {
    assert.equal(describePermission("account.folder"), "may read a folder you connect, read-only");
  });
  await t.step("a remote host with the credential given", () => {
    assert.equal(
      describePermission("account.remote"),
      "may reach the host you connect, with the credential you give",
    );
  });
  await t.step("every permission a manifest may declare has its sentence", () => {
    for (const permission of PERMISSIONS) {
      assert.notEqual(describePermission(permission), "unknown permission", permission);
    }
  });
});
