import assert from "node:assert/strict";
import {
  type Approval,
  deleteApproval,
  readApproval,
  widenedPermissions,
  writeApproval,
} from "../../runtime/packages/approval.ts";

Deno.test("`widenedPermissions()` names what a request asks for beyond the approval", async (t) => {
  await t.step("the same permissions widen nothing", () => {
    assert.deepEqual(
      widenedPermissions(["background", "schedule"], ["background", "schedule"]),
      [],
    );
  });

  await t.step("the same permissions in another order widen nothing", () => {
    assert.deepEqual(
      widenedPermissions(["schedule", "background"], ["background", "schedule"]),
      [],
    );
  });

  await t.step("asking for fewer widens nothing", () => {
    assert.deepEqual(widenedPermissions(["background", "net:example.com"], ["background"]), []);
    assert.deepEqual(widenedPermissions(["background"], []), []);
  });

  await t.step("each new permission is named, in the order asked", () => {
    assert.deepEqual(
      widenedPermissions(["background"], ["work.agent", "background", "net:example.com"]),
      ["work.agent", "net:example.com"],
    );
  });

  await t.step("nothing approved: everything asked for widens", () => {
    assert.deepEqual(widenedPermissions([], ["background", "schedule"]), [
      "background",
      "schedule",
    ]);
  });

  await t.step("another host is a new permission, however alike", () => {
    assert.deepEqual(
      widenedPermissions(["net:example.com"], ["net:api.example.com", "net:example.com:8080"]),
      ["net:api.example.com", "net:example.com:8080"],
    );
  });

  await t.step("dropping one and adding another widens by the added one", () => {
    assert.deepEqual(widenedPermissions(["background", "schedule"], ["background", "work.agent"]), [
      "work.agent",
    ]);
  });
});

Deno.test("`writeApproval()`, `readApproval()` and `deleteApproval()` keep one approval per project and package", async (t) => {
  using kv = await Deno.openKv(":memory:");
  const approval: Approval = {
    id: "mail",
    version: "1.2.0",
    ref: {
      id: "mail",
      version: "1.2.0",
      source: "folder",
      dir: "/packages/mail",
      installedAt: "2030-01-01T09:00:00.000Z",
    },
    permissions: ["background", "net:mail.example.com"],
    approvedAt: "2030-01-01T09:00:05.000Z",
  };

  await t.step("nothing is approved until a person approves", async () => {
    assert.equal(await readApproval(kv, "/projects/alpha", "mail"), null);
  });

  await t.step("an approval is read back in the project it was given in only", async () => {
    await writeApproval(kv, "/projects/alpha", approval);
    assert.deepEqual(await readApproval(kv, "/projects/alpha", "mail"), approval);
    assert.equal(await readApproval(kv, "/projects/beta", "mail"), null);
    assert.equal(await readApproval(kv, "/projects/alpha", "calendar"), null);
  });

  await t.step("a newer approval replaces it", async () => {
    const newer = { ...approval, version: "2.0.0", permissions: ["background"] };
    await writeApproval(kv, "/projects/alpha", newer);
    assert.deepEqual(await readApproval(kv, "/projects/alpha", "mail"), newer);
  });

  await t.step("deleting it leaves other projects' approvals", async () => {
    await writeApproval(kv, "/projects/beta", approval);
    await deleteApproval(kv, "/projects/alpha", "mail");
    assert.equal(await readApproval(kv, "/projects/alpha", "mail"), null);
    assert.deepEqual(await readApproval(kv, "/projects/beta", "mail"), approval);
  });
});
