import assert from "node:assert/strict";
import { join } from "node:path";
import type { AgentSession } from "../../../runtime/agent_session.ts";
import type { ChatListResponse, ChatSessionResponse } from "../../../runtime/web/api/chat_types.ts";
import { runSync } from "../../internal/cli.ts";
import { ServeProcess } from "../../internal/serve_process.ts";
import { SseReader } from "../../internal/sse.ts";

/** The serve's Chat API, as the window calls it, with the installation's token. */
function chatApi(url: URL, project: string) {
  const token = url.searchParams.get("token")!;
  const at = (path: string) =>
    `${url.origin}${path}${path.includes("?") ? "&" : "?"}token=${token}`;
  const query = `project=${encodeURIComponent(project)}`;
  return {
    async list(): Promise<ChatListResponse> {
      const response = await fetch(at(`/api/chat?${query}`));
      assert.equal(response.status, 200);
      return await response.json();
    },
    async view(key: string): Promise<{ status: number; body: ChatSessionResponse }> {
      const response = await fetch(at(`/api/chat/sessions/${key}?${query}`));
      return { status: response.status, body: await response.json() };
    },
    async post(path: string, body: Record<string, unknown>): Promise<ChatSessionResponse> {
      const response = await fetch(at(`/api/chat${path}`), {
        method: "POST",
        headers: { "content-type": "application/json", "authorization": `Bearer ${token}` },
        body: JSON.stringify({ project, ...body }),
      });
      const answer = await response.json();
      assert.equal(response.status, 200, JSON.stringify(answer));
      return answer;
    },
  };
}

/** Waits until the session's state is one of `states`; fails after a while with what it saw. */
async function untilState(
  api: ReturnType<typeof chatApi>,
  key: string,
  states: AgentSession["state"][],
): Promise<AgentSession> {
  const until = Date.now() + 60_000;
  let seen: AgentSession | undefined;
  while (Date.now() < until) {
    const { status, body } = await api.view(key);
    assert.equal(status, 200);
    seen = body.session;
    if (states.includes(seen.state)) return seen;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`${key} never became ${states.join(" or ")}; it is ${seen?.state}`);
}

/** Every row Chat lists, archived ones included. */
function rowKeys(list: ChatListResponse): string[] {
  return [
    ...list.conversations,
    ...list.groups.flatMap((group) => group.rows),
    ...list.archived,
  ].map((row) => row.key);
}

Deno.test("`chatCommand.run()` changes a conversation through a running serve, as the window does", async (t) => {
  const root = await Deno.makeTempDir({ prefix: "sync-chat-serve-" });
  const home = join(root, "home");
  const project = join(root, "project");
  await Deno.mkdir(project);
  const serve = new ServeProcess(home);
  let stream: SseReader | undefined;
  try {
    const url = new URL(await serve.url());
    const real = await Deno.realPath(project);
    const api = chatApi(url, real);
    const sync = (...args: string[]) => runSync(home, [...args, "--project", project]);

    await t.step(
      "a delete stops the agent held for the next turn and tells an open window",
      async () => {
        const begun = await api.post("/sessions", { agent: "demo", text: "no-permission hello" });
        const key = begun.session.key;
        // The turn ends; the serve keeps the agent for the next one.
        await untilState(api, key, ["ended"]);
        const events = await fetch(
          `${url.origin}/api/events?project=${encodeURIComponent(real)}&token=${
            url.searchParams.get("token")
          }`,
        );
        assert.equal(events.status, 200);
        stream = new SseReader(events.body!);
        await stream.event("ready");

        const deleted = await sync("chat", "delete", key);
        assert.equal(deleted.code, 0, deleted.stderr);
        assert.equal(deleted.stdout.trim(), `Deleted ${key} and its transcript`);

        // The window's stream is told, and reading it again finds it gone.
        let told: { type: string; session: AgentSession };
        do {
          told = (await stream.event("session")) as typeof told;
        } while (told.session.key !== key);
        assert.equal((await api.view(key)).status, 404);
        assert.ok(!rowKeys(await api.list()).includes(key), "Chat no longer lists it");
      },
    );

    await t.step("a running conversation is refused in words, and stays", async () => {
      const begun = await api.post("/sessions", { agent: "demo", text: "no-permission hang" });
      const key = begun.session.key;
      await untilState(api, key, ["running"]);
      for (const verb of ["delete", "archive"]) {
        const refused = await sync("chat", verb, key);
        assert.equal(refused.code, 1, refused.stdout);
        assert.match(
          refused.stderr.trim(),
          new RegExp(
            `^sync chat: The conversation ${key} is running: stop it first(?: \\(Cancel its turn\\))?, then ${verb} it$`,
          ),
        );
      }
      assert.equal((await api.view(key)).body.session.state, "running");
      assert.ok(rowKeys(await api.list()).includes(key), "Chat still lists it");
      await api.post(`/sessions/${key}/cancel`, {});
      await untilState(api, key, ["ended", "failed"]);
    });

    await t.step("archive, restore and keep of a live conversation are the serve's", async () => {
      const begun = await api.post("/sessions", { agent: "demo", text: "no-permission again" });
      const key = begun.session.key;
      await untilState(api, key, ["ended"]);
      const archived = await sync("chat", "archive", key);
      assert.equal(archived.code, 0, archived.stderr);
      assert.ok((await api.view(key)).body.session.archivedAt, "the serve's view says archived");
      assert.deepEqual((await api.list()).archived.map((row) => row.key), [key]);
      const restored = await sync("chat", "restore", key);
      assert.equal(restored.code, 0, restored.stderr);
      assert.equal((await api.view(key)).body.session.archivedAt, null);
      const kept = await sync("chat", "keep", key);
      assert.equal(kept.code, 0, kept.stderr);
      assert.match(kept.stdout, new RegExp(`^Kept ${key} as \\S+, revision 1$`, "m"));
      assert.ok((await api.view(key)).body.session.keptAs, "the serve's view names the record");
      // The agent held for the next turn still answers it.
      await api.post(`/sessions/${key}/prompt`, { text: "no-permission once more" });
      await untilState(api, key, ["ended"]);
    });
  } finally {
    await stream?.cancel();
    await serve.stop("SIGTERM");
    await Deno.remove(root, { recursive: true });
  }
});
