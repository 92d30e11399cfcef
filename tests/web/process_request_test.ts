import assert from "node:assert/strict";
import { parseProcessRequest, ProcessRequestError } from "../../runtime/web/process_request.ts";

function refusal(data: unknown): ProcessRequestError {
  try {
    parseProcessRequest(data);
  } catch (error) {
    assert.ok(error instanceof ProcessRequestError);
    return error;
  }
  throw new Error(`${JSON.stringify(data)} was taken`);
}

Deno.test("`parseProcessRequest()` takes requests and refuses anything else with a reason", async (t) => {
  await t.step("a spawn, a write, an end and a kill are read as sent", () => {
    assert.deepEqual(
      parseProcessRequest(JSON.stringify({
        type: "spawn",
        id: "a",
        process: "lsp",
        args: ["--x"],
        cwd: "~/w",
        env: { A: "1", B: null },
      })),
      {
        type: "spawn",
        id: "a",
        process: "lsp",
        args: ["--x"],
        cwd: "~/w",
        env: { A: "1", B: null },
      },
    );
    assert.deepEqual(parseProcessRequest('{"type":"write","id":1,"pid":5,"text":"x"}'), {
      type: "write",
      id: 1,
      pid: 5,
      text: "x",
    });
    assert.deepEqual(parseProcessRequest('{"type":"end","id":2,"pid":5}'), {
      type: "end",
      id: 2,
      pid: 5,
    });
    assert.deepEqual(parseProcessRequest('{"type":"kill","id":3,"pid":5}'), {
      type: "kill",
      id: 3,
      pid: 5,
    });
  });

  await t.step("the refusal answers the message's id when it could be read", () => {
    assert.equal(refusal('{"type":"nope","id":4}').requestId, 4);
    assert.equal(refusal("{").requestId, null);
    assert.equal(refusal('{"type":"spawn","id":{}}').requestId, null);
  });

  await t.step("environment names that are not names, or are Sync's, are refused", () => {
    const env = (value: unknown) =>
      refusal(JSON.stringify({ type: "spawn", id: 1, process: "x", env: value })).message;
    assert.match(env({ "A=B": "1" }), /is not a variable's name/);
    assert.match(env({ SYNC_TOKEN: "1" }), /SYNC_\* variables configure Sync itself/);
    assert.match(env({ A: 1 }), /env\.A must be a string, or null/);
    assert.match(env(["A"]), /"env" must be an object/);
  });

  await t.step("PATH and dynamic-loader variables are refused, naming why", () => {
    const env = (value: unknown) =>
      refusal(JSON.stringify({ type: "spawn", id: 1, process: "x", env: value })).message;
    assert.equal(
      env({ PATH: "/tmp/fakebin" }),
      "Cannot take the message: a screen may not set PATH: it would change which programs " +
        "run by name, for the approved program and whatever it starts; they are found on " +
        "Sync's own PATH",
    );
    assert.match(env({ PATH: null }), /may not remove PATH/);
    assert.equal(
      env({ LD_PRELOAD: "/tmp/evil.so" }),
      "Cannot take the message: a screen may not set LD_PRELOAD: it would change which code " +
        "the approved program runs (it is read by the dynamic loader)",
    );
    for (const name of ["LD_LIBRARY_PATH", "LD_AUDIT", "DYLD_INSERT_LIBRARIES", "GCONV_PATH"]) {
      assert.match(env({ A: "1", [name]: "/tmp/x" }), new RegExp(`may not set ${name}: `));
    }
    // Names that only look alike are the program's own business.
    assert.deepEqual(
      parseProcessRequest(JSON.stringify({
        type: "spawn",
        id: 1,
        process: "x",
        env: { MANPATH: "/m", OLD_LD_PRELOAD: "1", path: "p" },
      })),
      {
        type: "spawn",
        id: 1,
        process: "x",
        env: { MANPATH: "/m", OLD_LD_PRELOAD: "1", path: "p" },
      },
    );
  });

  await t.step("too many arguments, and NUL characters, are refused", () => {
    const args = (value: unknown) =>
      refusal(JSON.stringify({ type: "spawn", id: 1, process: "x", args: value })).message;
    assert.match(args(Array(300).fill("a")), /at most 256/);
    assert.match(args(["a\0b"]), /NUL/);
  });

  await t.step("a message over the size limit is refused unread", () => {
    assert.match(refusal("x".repeat(1024 * 1024 + 1)).message, /larger than 1048576 bytes/);
  });
});
