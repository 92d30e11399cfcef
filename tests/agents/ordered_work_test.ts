import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { addAgent, demoAgentCommand, readSession } from "../../runtime/agents/mod.ts";
import { readLamp } from "../../runtime/extensions/mod.ts";
import { installPackage } from "../../runtime/lifecycle/mod.ts";
import { writeRecord } from "../../runtime/memory/mod.ts";
import { getContent, getRecord } from "../../runtime/memory/store.ts";
import { groupSessions } from "../../runtime/web/api/chat.ts";
import { testHost } from "../internal/packages.ts";
import { performerOver, waitForSession } from "../internal/sessions.ts";

const ORDERER = `import { work } from "@sync/extension-api/service";
export default function register() {
  return {
    "orderer.order": async (p) => (await work.order({
      kind: "agent.session",
      agent: p.agent ?? "demo",
      title: p.title ?? "Some work",
      prompt: { text: p.text },
      onInterrupted: "wait",
    })).key,
    "orderer.state": async (p) => (await work.state(p.key)).state,
  };
}`;

/** The package that orders work and reads its state, as installed. */
const ORDERER_PACKAGE = {
  id: "orderer",
  permissions: ["background", "work.agent"],
  handlers: ["orderer.order", "orderer.state"],
  service: ORDERER,
};

Deno.test("`work.state()` follows the session that performs the order", async (t) => {
  const env = await testHost({ readsWorkState: true });
  const work = performerOver(env.host);
  try {
    await env.install(ORDERER_PACKAGE);
    const state = async (key: string) => await env.call("orderer", "orderer.state", { key });

    const first = await env.call("orderer", "orderer.order", { text: "Please look" }) as string;
    await t.step("`ordered` while nothing performs it", async () => {
      assert.equal(await state(first), "ordered");
    });

    await t.step(
      "`waiting` for a permission once the performer began it, then `ended`",
      async () => {
        // The project was remembered when the package was installed: the start finds the order.
        await work.start();
        const waiting = await waitForSession(
          env.kv,
          env.project,
          first,
          (s) => s.state === "waiting",
        );
        assert.equal(await state(first), "waiting");
        const requestId = waiting.waitingFor?.kind === "permission"
          ? waiting.waitingFor.requestId
          : "";
        const view = await work.view(env.project, first);
        const asked = view.transcript.find((e) => e.kind === "permission");
        const allow = asked?.kind === "permission" ? asked.options[0].optionId : "";
        await work.answer(env.project, first, requestId, allow);
        await waitForSession(env.kv, env.project, first, (s) => s.state === "ended");
        assert.equal(await state(first), "ended");
      },
    );

    await t.step(
      "an order placed while the performer runs is begun from its receipt; `failed`",
      async () => {
        const crash = await env.call("orderer", "orderer.order", { text: "crash" }) as string;
        await waitForSession(env.kv, env.project, crash, (s) => s.state === "failed");
        assert.equal(await state(crash), "failed");
      },
    );

    let locked = "";
    await t.step("waiting for a sign-in makes the ordering extension's lamp red", async () => {
      const demo = demoAgentCommand(["needs-sign-in"]);
      await addAgent(env.kv, {
        name: "locked",
        command: demo.command,
        args: [...demo.args],
        env: {},
      });
      locked = await env.call("orderer", "orderer.order", {
        agent: "locked",
        title: "Locked work",
        text: "hello",
      }) as string;
      await waitForSession(env.kv, env.project, locked, (s) => s.state === "waiting");
      assert.equal(await state(locked), "waiting");
      const lamp = await readLamp(env.kv, env.project, "orderer", { now: Date.now });
      assert.equal(lamp.state, "red");
      const notice = lamp.notices.find((n) => n.reason === "agent-sign-in");
      assert.match(
        notice?.text ?? "",
        /Work it ordered \("Locked work"\) waits for you to sign in to the agent/,
      );
    });

    await t.step("`interrupted` once Sync stopped while it waited", async () => {
      await work.stop();
      assert.equal(await state(locked), "interrupted");
      assert.equal(await state(first), "ended");
      const lamp = await readLamp(env.kv, env.project, "orderer", { now: Date.now });
      assert.notEqual(lamp.state, "red");
    });
  } finally {
    await work.stop();
    await env.close();
  }
});

Deno.test("`WorkPerformer` looks in a project's outbox after a call that ordered work, not after every call", async (t) => {
  const env = await testHost({ readsWorkState: true });
  let looks = 0;
  const work = performerOver(env.host, {
    projectMemory: (project) => {
      looks++;
      return env.host.projectMemory(project);
    },
  });
  try {
    await env.install(ORDERER_PACKAGE);
    await work.start();
    // What the start looked at is done with once a scan of the project has ended.
    await work.scan(env.project);
    const key = await env.call("orderer", "orderer.order", { text: "Please look" }) as string;
    await waitForSession(env.kv, env.project, key, (s) => s.state === "waiting");
    const before = looks;

    await t.step("calls that order nothing leave the outbox alone", async () => {
      for (let n = 0; n < 5; n++) {
        assert.equal(await env.call("orderer", "orderer.state", { key }), "waiting");
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
      assert.equal(looks, before);
    });

    await t.step("a call that orders work has its order begun", async () => {
      const next = await env.call("orderer", "orderer.order", { text: "And this" }) as string;
      await waitForSession(env.kv, env.project, next, (s) => s.state === "waiting");
      assert.ok(looks > before);
    });
  } finally {
    await work.stop();
    await env.close();
  }
});

Deno.test("extensions/triage orders a demo session that is performed end to end", async (t) => {
  const env = await testHost();
  const work = performerOver(env.host);
  const watcher = env.host.events.subscribe({ project: env.project });
  try {
    const folder = (name: string) =>
      fileURLToPath(new URL(`../../extensions/${name}`, import.meta.url));
    await installPackage(env.host, folder("issues"), env.project, { approve: true });
    await installPackage(env.host, folder("triage"), env.project, { approve: true });
    const memory = await env.host.projectMemory(env.project);
    await writeRecord(memory, {
      key: "issues.issue/7",
      title: "Slow save",
      fields: { number: 7, state: "open" },
      content: "Saving a file with a long name takes a minute.",
    });
    await work.start();

    let key = "";
    await t.step("its handler, called through the host, orders a session that begins", async () => {
      const { value } = await env.host.callHandler(env.project, "triage", "triage.sweep", {
        occasion: { kind: "extension" },
        source: { kind: "person" },
      });
      assert.ok(value !== null);
      const mark = await getRecord(memory, "triage.ordered/7");
      key = String(mark?.fields.work);
      const session = await waitForSession(env.kv, env.project, key, (s) => s.state === "waiting");
      assert.equal(session.extensionId, "triage");
      assert.equal(session.extensionName, "Triage");
      const { calledAt, ...source } = session.source as { calledAt?: string };
      assert.deepEqual(source, {
        kind: "handler",
        extensionId: "triage",
        extensionName: "Triage",
        handler: "triage.sweep",
        occasion: { kind: "extension" },
        calledBy: { kind: "person" },
        description: "Orders a triage session for each open issues.issue record not yet triaged",
      });
      assert.ok(calledAt && calledAt <= session.createdAt, "the call began before its session");
      assert.equal(session.about, "issues.issue/7");
      assert.equal(session.title, "Triage issue 7: Slow save");
      const list = groupSessions(env.project, await work.list(env.project));
      assert.deepEqual(list.groups.map((g) => [g.name, g.rows.map((r) => r.key)]), [["Triage", [
        key,
      ]]]);
    });

    await t.step(
      "the prompt carries the order, the extension's instructions and who ordered it",
      async () => {
        const { transcript } = await work.view(env.project, key);
        const prompt = transcript.find((e) => e.kind === "user");
        const text = prompt?.kind === "user" ? prompt.text : "";
        assert.match(text, /^Triage issue 7: Slow save\n\nTriage issue 7, "Slow save"/);
        assert.match(text, /Saving a file with a long name takes a minute./);
        assert.match(
          text,
          /What the Triage extension tells agents:\n\nTriage orders one agent session/,
        );
        assert.match(
          text,
          /ordered by the Triage extension's triage\.sweep handler in .*, about issues\.issue\/7\. Begun by the Triage sweep, called by a person, at \d{4}-\d\d-\d\d \d\d:\d\d\.$/,
        );
      },
    );

    await t.step(
      "it streams as transcript facts, and ends once the permission is answered",
      async () => {
        const session = await readSession(env.kv, env.project, key);
        const requestId = session?.waitingFor?.kind === "permission"
          ? session.waitingFor.requestId
          : "";
        const { transcript } = await work.view(env.project, key);
        const asked = transcript.find((e) => e.kind === "permission");
        await work.answer(
          env.project,
          key,
          requestId,
          asked?.kind === "permission" ? asked.options[0].optionId : "",
        );
        await waitForSession(env.kv, env.project, key, (s) => s.state === "ended");
        const told: string[] = [];
        for (let event = await watcher.next(0); event; event = await watcher.next(0)) {
          if (event.type === "transcript" && event.sessionKey === key) told.push(event.entry.kind);
        }
        assert.ok(
          told.includes("message") && told.includes("permission") && told.at(-1) === "turn_end",
        );
      },
    );

    await t.step("kept, it is a chat.conversation record about the issue", async () => {
      const { session } = await work.keep(env.project, key);
      assert.equal(session.keptAs, `chat.conversation/${key}`);
      const record = await getRecord(memory, `chat.conversation/${key}`);
      assert.equal(record?.title, "Triage issue 7: Slow save");
      assert.equal(record?.fields.about, "issues.issue/7");
      assert.equal(record?.fields.extensionId, "triage");
      assert.match(await getContent(memory, `chat.conversation/${key}`) ?? "", /\*\*Agent:\*\*/);
    });
  } finally {
    watcher.close();
    await work.stop();
    await env.close();
  }
});
