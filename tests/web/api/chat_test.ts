import assert from "node:assert/strict";
import type { ErrorResponse } from "../../../runtime/web/api/types.ts";
import type {
  AgentsResponse,
  ChatDeleteResponse,
  ChatListResponse,
  ChatSessionResponse,
} from "../../../runtime/web/api/chat_types.ts";
import { createApp } from "../../../runtime/web/app.ts";
import { getContent, getRecord } from "../../../runtime/memory/store.ts";
import { testHost } from "../../internal/packages.ts";
import { readAgent, readTranscript } from "../../../runtime/agents/mod.ts";
import { commitOrder, performerOver, waitForSession } from "../../internal/sessions.ts";

const TOKEN = "t".repeat(48);
const ORIGIN = "http://127.0.0.1:4321";
const HEADERS = { cookie: `sync_token_4321=${TOKEN}`, origin: ORIGIN };

Deno.test("Chat's API lists, shows and acts on agent sessions", async (t) => {
  const env = await testHost();
  const work = performerOver(env.host);
  const app = createApp(env.host, { token: TOKEN, port: 4321, work });
  const project = encodeURIComponent(env.project);
  const get = (path: string) => app.request(`${ORIGIN}${path}`, { headers: HEADERS });
  const post = (path: string, body: unknown) =>
    app.request(`${ORIGIN}${path}`, {
      method: "POST",
      headers: { ...HEADERS, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
  const ok = async <T>(response: Response): Promise<T> => {
    const body = await response.json();
    assert.equal(response.status, 200, JSON.stringify(body));
    return body as T;
  };
  const refused = async (response: Response, status: number, message: RegExp) => {
    const body = await response.json() as ErrorResponse;
    assert.equal(response.status, status, JSON.stringify(body));
    assert.match(body.error, message);
  };
  /** Waits until the session's transcript holds the agent's words `said`. */
  const untilSaid = async (sessionKey: string, said: string) => {
    for (let tries = 0;; tries++) {
      const view = await ok<ChatSessionResponse>(
        await get(`/api/chat/sessions/${sessionKey}?project=${project}`),
      );
      if (view.transcript.some((e) => e.kind === "message" && e.text.includes(said))) return;
      if (tries > 400) throw new Error(`${sessionKey} never said ${said}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  try {
    let key = "";
    await t.step("POST /api/chat/sessions begins a person's conversation", async () => {
      const begun = await ok<ChatSessionResponse>(
        await post("/api/chat/sessions", {
          project: env.project,
          agent: "demo",
          text: "Tidy the docs",
        }),
      );
      key = begun.session.key;
      assert.equal(begun.session.state, "running");
      assert.deepEqual(begun.session.source, { kind: "person" });
    });

    await t.step("a permission the agent asks waits, and is denied through the API", async () => {
      const waiting = await waitForSession(env.kv, env.project, key, (s) => s.state === "waiting");
      assert.equal(waiting.waitingFor?.kind, "permission");
      const requestId = waiting.waitingFor?.kind === "permission"
        ? waiting.waitingFor.requestId
        : "";
      const shown = await ok<ChatSessionResponse>(
        await get(`/api/chat/sessions/${key}?project=${project}`),
      );
      const asked = shown.transcript.find((e) => e.kind === "permission");
      assert.ok(asked?.kind === "permission");
      assert.deepEqual(asked.options.map((o) => o.name), ["Allow", "Deny"]);
      const deny = asked.options.find((o) => o.name === "Deny")!.optionId;
      await refused(
        await post(`/api/chat/sessions/${key}/permission`, {
          project: env.project,
          requestId,
          optionId: "no-such-option",
        }),
        400,
        /not one of the options the agent offered/,
      );
      await ok(
        await post(`/api/chat/sessions/${key}/permission`, {
          project: env.project,
          requestId,
          optionId: deny,
        }),
      );
      await waitForSession(env.kv, env.project, key, (s) => s.state === "ended");
      const after = await ok<ChatSessionResponse>(
        await get(`/api/chat/sessions/${key}?project=${project}`),
      );
      const answered = after.transcript.find((e) => e.kind === "permission_answer");
      assert.ok(answered?.kind === "permission_answer" && answered.optionId === deny);
      assert.match(
        after.transcript.filter((e) => e.kind === "message").map((e) =>
          e.kind === "message" ? e.text : ""
        )
          .join(""),
        /You denied it/,
      );
      await refused(
        await post(`/api/chat/sessions/${key}/permission`, {
          project: env.project,
          requestId,
          optionId: deny,
        }),
        409,
        /no permission request .* waiting/,
      );
    });

    await t.step("the next turn, then Cancel of a turn that hangs", async () => {
      await ok(
        await post(`/api/chat/sessions/${key}/prompt`, { project: env.project, text: "hang on" }),
      );
      await refused(
        await post(`/api/chat/sessions/${key}/prompt`, { project: env.project, text: "more" }),
        409,
        /wait for its turn to end/,
      );
      await untilSaid(key, "Hanging until cancelled");
      await ok(await post(`/api/chat/sessions/${key}/cancel`, { project: env.project }));
      await waitForSession(env.kv, env.project, key, (s) => s.state === "ended");
      // The step the agent was on is the cancel's, not left "in progress".
      const cancelled = await ok<ChatSessionResponse>(
        await get(`/api/chat/sessions/${key}?project=${project}`),
      );
      const plan = cancelled.transcript.findLast((e) => e.kind === "plan");
      assert.ok(plan?.kind === "plan");
      assert.deepEqual(plan.steps.map((step) => step.status), ["cancelled", "pending", "pending"]);
      assert.deepEqual(cancelled.transcript.at(-1), {
        at: cancelled.transcript.at(-1)!.at,
        kind: "turn_end",
        stopReason: "cancelled",
      });
      await refused(
        await post(`/api/chat/sessions/${key}/cancel`, { project: env.project }),
        409,
        /no turn to cancel/,
      );
    });

    await t.step("Continue of an ended, live session changes nothing", async () => {
      const continued = await ok<ChatSessionResponse>(
        await post(`/api/chat/sessions/${key}/continue`, { project: env.project }),
      );
      assert.equal(continued.session.state, "ended");
    });

    await t.step("Keep writes the chat.conversation record", async () => {
      const kept = await ok<ChatSessionResponse>(
        await post(`/api/chat/sessions/${key}/keep`, { project: env.project }),
      );
      assert.equal(kept.session.keptAs, `chat.conversation/${key}`);
      assert.deepEqual(kept.kept, {
        key: `chat.conversation/${key}`,
        kind: "chat.conversation",
        id: key,
        revision: 1,
        written: true,
      });
      const memory = await env.host.projectMemory(env.project);
      const record = await getRecord(memory, `chat.conversation/${key}`);
      assert.equal(record?.title, "Tidy the docs");
      assert.equal(record?.updatedBy, "person");
      assert.equal(record?.fields.agent, "demo");
      // A conversation a person began has no extension and no order: no null fields for them.
      assert.equal(Object.hasOwn(record?.fields ?? {}, "extensionId"), false);
      assert.equal(Object.hasOwn(record?.fields ?? {}, "orderKey"), false);
      const content = await getContent(memory, `chat.conversation/${key}`);
      assert.match(content ?? "", /\*\*Person:\*\* Tidy the docs/);
    });

    await t.step("Keep again with nothing new writes no revision, and says so", async () => {
      const again = await ok<ChatSessionResponse>(
        await post(`/api/chat/sessions/${key}/keep`, { project: env.project }),
      );
      assert.equal(again.kept?.written, false);
      assert.equal(again.kept?.revision, 1);
      const memory = await env.host.projectMemory(env.project);
      assert.equal((await getRecord(memory, `chat.conversation/${key}`))?.revision, 1);
    });

    await t.step("GET /api/chat groups what extensions ordered under their names", async () => {
      const memory = await env.host.projectMemory(env.project);
      await commitOrder(memory, env.project, {
        key: "work-a",
        prompt: { text: "no-permission a" },
      });
      await work.scan(env.project);
      await waitForSession(env.kv, env.project, "work-a", (s) => s.state === "ended");
      const list = await ok<ChatListResponse>(await get(`/api/chat?project=${project}`));
      assert.equal(list.project, env.project);
      assert.deepEqual(list.conversations.map((r) => r.key), [key]);
      assert.deepEqual(list.groups.map((g) => [g.extensionId, g.name, g.rows.map((r) => r.key)]), [
        ["tester", "Tester", ["work-a"]],
      ]);
    });

    await t.step(
      "archive lists a conversation apart; delete removes it, not its record",
      async () => {
        const running = await ok<ChatSessionResponse>(
          await post("/api/chat/sessions", { project: env.project, agent: "demo", text: "hang" }),
        );
        const hanging = running.session.key;
        await refused(
          await post(`/api/chat/sessions/${hanging}/archive`, { project: env.project }),
          409,
          /is running: stop it first/,
        );
        await refused(
          await post(`/api/chat/sessions/${hanging}/delete`, { project: env.project }),
          409,
          /is running: stop it first/,
        );
        await untilSaid(hanging, "Hanging until cancelled");
        await ok(await post(`/api/chat/sessions/${hanging}/cancel`, { project: env.project }));
        await waitForSession(env.kv, env.project, hanging, (s) => s.state === "ended");

        const archived = await ok<ChatSessionResponse>(
          await post(`/api/chat/sessions/${key}/archive`, { project: env.project }),
        );
        assert.ok(archived.session.archivedAt);
        let list = await ok<ChatListResponse>(await get(`/api/chat?project=${project}`));
        assert.deepEqual(list.conversations.map((r) => r.key), [hanging]);
        assert.deepEqual(list.archived.map((r) => r.key), [key]);
        await ok(
          await post(`/api/chat/sessions/${key}/archive`, {
            project: env.project,
            archived: false,
          }),
        );
        list = await ok<ChatListResponse>(await get(`/api/chat?project=${project}`));
        assert.deepEqual(list.conversations.map((r) => r.key).sort(), [hanging, key].sort());
        assert.deepEqual(list.archived, []);

        const watcher = env.host.events.subscribe({
          project: env.project,
          types: new Set(["session"]),
        });
        const deleted = await ok<ChatDeleteResponse>(
          await post(`/api/chat/sessions/${key}/delete`, { project: env.project }),
        );
        // Told as deleted, so a page drops it rather than reading it again.
        const told: (true | undefined)[] = [];
        for (let event = await watcher.next(0); event; event = await watcher.next(0)) {
          if (event.type === "session" && event.session.key === key) told.push(event.deleted);
        }
        watcher.close();
        assert.deepEqual(told, [true]);
        assert.deepEqual(deleted.deleted, {
          key,
          title: "Tidy the docs",
          keptAs: `chat.conversation/${key}`,
        });
        await refused(await get(`/api/chat/sessions/${key}?project=${project}`), 404, /no session/);
        assert.deepEqual(await readTranscript(env.kv, env.project, key), {
          entries: [],
          omitted: 0,
        });
        const memory = await env.host.projectMemory(env.project);
        assert.equal((await getRecord(memory, `chat.conversation/${key}`))?.title, "Tidy the docs");
      },
    );

    await t.step("refusals", async () => {
      await refused(await get(`/api/chat`), 400, /project: required/);
      await refused(
        await get(`/api/chat/sessions/nope?project=${project}`),
        404,
        /no session nope/,
      );
      await refused(
        await post("/api/chat/sessions", { project: env.project, agent: "nobody", text: "x" }),
        404,
        /no agent named nobody/,
      );
      await refused(
        await post("/api/chat/sessions", { project: env.project, agent: "demo" }),
        400,
        /"text": required/,
      );
      await refused(
        await post("/api/chat/sessions", { project: "relative", agent: "demo", text: "x" }),
        400,
        /relative/,
      );
      await refused(
        await post(`/api/chat/sessions/${key}/permission`, {
          project: env.project,
          requestId: "r",
          optionId: 3,
        }),
        400,
        /"optionId"/,
      );
      const long = "k".repeat(3000);
      await refused(
        await get(`/api/chat/sessions/${long}?project=${project}`),
        400,
        /not a session's key: 3000 characters, at most 300 allowed/,
      );
      for (
        const act of ["delete", "archive", "keep", "cancel", "continue", "prompt", "permission"]
      ) {
        await refused(
          await post(`/api/chat/sessions/${long}/${act}`, {
            project: env.project,
            text: "x",
            requestId: "r",
            optionId: null,
          }),
          400,
          /not a session's key: 3000 characters, at most 300 allowed/,
        );
      }
      await refused(
        await get(`/api/chat/sessions/a%01b?project=${project}`),
        400,
        /control character/,
      );
      // There is no route that takes a source: an order's source cannot be changed.
      const response = await post(`/api/chat/sessions/work-a`, {
        project: env.project,
        source: { kind: "person" },
      });
      assert.equal(response.status, 404);
      await response.body?.cancel();
      const unchanged = await ok<ChatSessionResponse>(
        await get(`/api/chat/sessions/work-a?project=${project}`),
      );
      assert.equal(unchanged.session.source.kind, "handler");
      const bare = await app.request(`${ORIGIN}/api/chat?project=${project}`);
      assert.equal(bare.status, 401);
      await bare.body?.cancel();
    });
  } finally {
    await work.stop();
    await env.close();
  }
});

Deno.test("GET and POST /api/agents list, add and remove agents", async (t) => {
  const env = await testHost();
  const app = createApp(env.host, { token: TOKEN, port: 4321 });
  const post = (path: string, body: unknown) =>
    app.request(`${ORIGIN}${path}`, {
      method: "POST",
      headers: { ...HEADERS, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
  try {
    await t.step("the presets and the demo agent are listed", async () => {
      const response = await app.request(`${ORIGIN}/api/agents`, { headers: HEADERS });
      const { agents } = await response.json() as AgentsResponse;
      assert.deepEqual(agents.map((a) => [a.name, a.origin]), [
        ["claude-code", "preset"],
        ["codex", "preset"],
        ["demo", "bundled"],
        ["gemini", "preset"],
        ["goose", "preset"],
      ]);
    });

    await t.step(
      "a person's definition replaces a preset, never showing its env's values",
      async () => {
        const response = await post("/api/agents", {
          name: "gemini",
          command: "/opt/gemini",
          args: ["--acp"],
          env: { GEMINI_API_KEY: "secret" },
        });
        const { agents } = await response.json() as AgentsResponse;
        const gemini = agents.find((a) => a.name === "gemini")!;
        assert.equal(gemini.origin, "added");
        assert.equal(gemini.command, "/opt/gemini");
        assert.deepEqual(gemini.envNames, ["GEMINI_API_KEY"]);
        // Its program is not there: it is not ready, and says why and what to do.
        assert.equal(gemini.readiness.state, "command-not-found");
        assert.match(gemini.readiness.why ?? "", /gemini's command \/opt\/gemini is not a program/);
        assert.equal(agents.find((a) => a.name === "demo")?.readiness.state, "ready");
        assert.ok(!JSON.stringify(agents).includes("secret"));
      },
    );

    await t.step("removing it brings the preset back; a preset is not removed", async () => {
      const back = await post("/api/agents/gemini/remove", {});
      const { agents } = await back.json() as AgentsResponse;
      assert.equal(agents.find((a) => a.name === "gemini")?.origin, "preset");
      const refused = await post("/api/agents/gemini/remove", {});
      assert.equal(refused.status, 409);
      assert.match((await refused.json() as ErrorResponse).error, /a preset and cannot be removed/);
      const unknown = await post("/api/agents/nobody/remove", {});
      assert.equal(unknown.status, 404);
      await unknown.body?.cancel();
    });

    await t.step(
      "POST /api/agents/:name/env saves a key into a preset, never answering it back",
      async () => {
        const response = await post("/api/agents/codex/env", {
          name: "OPENAI_API_KEY",
          value: "sk-very-secret",
        });
        assert.equal(response.status, 200);
        const text = await response.text();
        assert.ok(!text.includes("sk-very-secret"), "the value is not answered");
        const codex = (JSON.parse(text) as AgentsResponse).agents.find((a) => a.name === "codex")!;
        assert.equal(codex.origin, "preset", "a preset with a key stays the preset");
        assert.deepEqual(codex.envNames, ["OPENAI_API_KEY"]);
        const listed = await app.request(`${ORIGIN}/api/agents`, { headers: HEADERS });
        assert.ok(!(await listed.text()).includes("sk-very-secret"));
        assert.equal((await readAgent(env.kv, "codex"))?.env.OPENAI_API_KEY, "sk-very-secret");
        const removed = await post("/api/agents/codex/env", {
          name: "OPENAI_API_KEY",
          value: null,
        });
        const after = (await removed.json() as AgentsResponse).agents.find((a) =>
          a.name === "codex"
        );
        assert.deepEqual(after?.envNames, []);
        const refused = await post("/api/agents/codex/env", { name: "SYNC_HOME", value: "x" });
        assert.equal(refused.status, 400);
        await refused.body?.cancel();
        const unknown = await post("/api/agents/nobody/env", { name: "A", value: "x" });
        assert.equal(unknown.status, 404);
        await unknown.body?.cancel();
      },
    );

    await t.step(
      "removing a preset removes the keys kept beside it, never answering them",
      async () => {
        const saved = await post("/api/agents/gemini/env", {
          name: "GEMINI_API_KEY",
          value: "g-very-secret",
        });
        assert.equal(saved.status, 200);
        await saved.body?.cancel();
        const removed = await post("/api/agents/gemini/remove", {});
        assert.equal(removed.status, 200);
        const text = await removed.text();
        assert.ok(!text.includes("g-very-secret"), "the value is not answered");
        const answer = JSON.parse(text) as AgentsResponse;
        assert.deepEqual(answer.removed, { definition: false, envNames: ["GEMINI_API_KEY"] });
        const gemini = answer.agents.find((a) => a.name === "gemini");
        assert.equal(gemini?.origin, "preset");
        assert.deepEqual(gemini?.envNames, []);
        assert.deepEqual((await readAgent(env.kv, "gemini"))?.env, {});
        const refused = await post("/api/agents/gemini/remove", {});
        assert.equal(refused.status, 409);
        assert.match(
          (await refused.json() as ErrorResponse).error,
          /^gemini is a preset .*nothing to remove/,
        );
      },
    );

    await t.step("a definition that is not one is refused, naming the part", async () => {
      const cases: [unknown, RegExp][] = [
        [{ name: "Bad Name", command: "x" }, /lowercase letters/],
        [{ name: "ok", command: "" }, /needs a command/],
        [{ name: "ok", command: "x", args: [1] }, /args are a list/],
        [{ name: "ok", command: "x", env: { SYNC_HOME: "/x" } }, /no SYNC_ variable/],
      ];
      for (const [body, message] of cases) {
        const response = await post("/api/agents", body);
        assert.equal(response.status, 400);
        assert.match((await response.json() as ErrorResponse).error, message);
      }
    });
  } finally {
    await env.close();
  }
});
