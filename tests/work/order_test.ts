import assert from "node:assert/strict";
import { listWorkOrders, parseWorkOrder } from "../../runtime/work/order.ts";
import { commitOrder } from "../internal/sessions.ts";
import { InvalidInputError } from "../../runtime/errors.ts";

/** An order with only what is required. */
const ORDER = {
  kind: "agent.session",
  agent: "demo",
  title: "Say hello",
  prompt: { text: "Hello" },
  onInterrupted: "wait",
};

/** Refuses `value` with an InvalidInputError saying exactly `problems`. */
function refuses(value: unknown, problems: string): void {
  assert.throws(() => parseWorkOrder(value), (error: Error) => {
    assert.ok(error instanceof InvalidInputError, `${error.name}: ${error.message}`);
    assert.equal(error.message, `work.order() refused the order: ${problems}`);
    return true;
  });
}

Deno.test("`parseWorkOrder()` takes a well-formed order", async (t) => {
  await t.step("with only what is required", () => {
    assert.deepEqual(parseWorkOrder(structuredClone(ORDER)), ORDER);
  });

  // The whole order's size is held to its own limit when it is staged (tests/host/functions/work_test.ts).
  await t.step("with every field at its longest", () => {
    const order = {
      ...ORDER,
      onInterrupted: "continue",
      agent: "a".repeat(100),
      title: "t".repeat(200),
      prompt: { text: "x".repeat(60_000), attachments: Array(32).fill(`/${"f".repeat(4095)}`) },
      about: "issues.issue/".padEnd(300, "1"),
    };
    assert.deepEqual(parseWorkOrder(structuredClone(order)), order);
  });
});

Deno.test("`parseWorkOrder()` names the field of every refusal", async (t) => {
  const TOO_SMALL = "Too small: expected string to have >=1 characters";

  await t.step("what is not an object is refused as the order", () => {
    refuses(null, "(order): Invalid input: expected object, received null");
    refuses("an order", "(order): Invalid input: expected object, received string");
    refuses([ORDER], "(order): Invalid input: expected object, received array");
  });

  await t.step("kind: only agent.session", () => {
    refuses({ ...ORDER, kind: "agent.chat" }, 'kind: Invalid input: expected "agent.session"');
  });

  await t.step("agent: a string of 1 to 100 characters", () => {
    refuses({ ...ORDER, agent: 7 }, "agent: Invalid input: expected string, received number");
    refuses({ ...ORDER, agent: "" }, `agent: ${TOO_SMALL}`);
    refuses(
      { ...ORDER, agent: "a".repeat(101) },
      "agent: Too big: expected string to have <=100 characters",
    );
  });

  await t.step("title: a string of 1 to 200 characters", () => {
    refuses({ ...ORDER, title: "" }, `title: ${TOO_SMALL}`);
    refuses(
      { ...ORDER, title: "t".repeat(201) },
      "title: Too big: expected string to have <=200 characters",
    );
  });

  await t.step("prompt: an object with text and perhaps attachments, nothing else", () => {
    refuses(
      { ...ORDER, prompt: "Hello" },
      "prompt: Invalid input: expected object, received string",
    );
    refuses({ ...ORDER, prompt: { text: "" } }, `prompt.text: ${TOO_SMALL}`);
    refuses(
      { ...ORDER, prompt: { text: "x".repeat(60_001) } },
      "prompt.text: Too big: expected string to have <=60000 characters",
    );
    refuses({ ...ORDER, prompt: { text: "Hi", tone: "warm" } }, 'prompt: Unrecognized key: "tone"');
  });

  await t.step("prompt.attachments: at most 32 paths, each named by its place", () => {
    refuses(
      { ...ORDER, prompt: { text: "Hi", attachments: Array(33).fill("/notes.md") } },
      "prompt.attachments: Too big: expected array to have <=32 items",
    );
    refuses(
      { ...ORDER, prompt: { text: "Hi", attachments: ["/notes.md", ""] } },
      `prompt.attachments.1: ${TOO_SMALL}`,
    );
    refuses(
      { ...ORDER, prompt: { text: "Hi", attachments: [`/${"f".repeat(4096)}`] } },
      "prompt.attachments.0: Too big: expected string to have <=4096 characters",
    );
    refuses(
      { ...ORDER, prompt: { text: "Hi", attachments: ["/notes.md", "../../x"] } },
      "prompt.attachments.1: an attachment is a file's absolute path, such as /home/ada/notes.md",
    );
  });

  await t.step("onInterrupted: required, continue or wait", () => {
    const expected = 'onInterrupted: Invalid option: expected one of "continue"|"wait"';
    refuses({ ...ORDER, onInterrupted: "resume" }, expected);
    const { onInterrupted: _, ...without } = ORDER;
    refuses(without, expected);
  });

  await t.step("about: when given, a string of 1 to 300 characters", () => {
    refuses({ ...ORDER, about: "" }, `about: ${TOO_SMALL}`);
    refuses(
      { ...ORDER, about: "a".repeat(301) },
      "about: Too big: expected string to have <=300 characters",
    );
  });

  await t.step("a field the order does not have is refused by name", () => {
    refuses({ ...ORDER, source: { kind: "person" } }, '(order): Unrecognized key: "source"');
  });

  await t.step("every problem is named at once, in the order's field order", () => {
    refuses(
      { kind: "agent.session", title: "", onInterrupted: "never" },
      [
        "agent: Invalid input: expected string, received undefined",
        `title: ${TOO_SMALL}`,
        "prompt: Invalid input: expected object, received undefined",
        'onInterrupted: Invalid option: expected one of "continue"|"wait"',
      ].join("; "),
    );
  });
});

Deno.test("`listWorkOrders()` lists the outbox oldest first, or only what came after a key", async (t) => {
  using memory = await Deno.openKv(":memory:");
  for (const key of ["work-1", "work-2", "work-20", "work-3"]) {
    await commitOrder(memory, "/p", { key, prompt: { text: key } });
  }
  await t.step("all of it, in key order", async () => {
    assert.deepEqual((await listWorkOrders(memory)).map((o) => o.key), [
      "work-1",
      "work-2",
      "work-20",
      "work-3",
    ]);
  });
  await t.step("after a key: not that one, but one that begins with it", async () => {
    assert.deepEqual((await listWorkOrders(memory, { after: "work-2" })).map((o) => o.key), [
      "work-20",
      "work-3",
    ]);
    assert.deepEqual(await listWorkOrders(memory, { after: "work-3" }), []);
  });
});
