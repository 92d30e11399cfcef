import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { join } from "node:path";
import { setAgentEnv } from "../../../runtime/agents/mod.ts";
import { openInstallation } from "../../../runtime/projects/mod.ts";
import { runSync } from "../../internal/cli.ts";
import { ServeProcess } from "../../internal/serve_process.ts";

Deno.test("`sync agents` lists, adds and removes agents", async (t) => {
  const home = await Deno.makeTempDir({ prefix: "sync-agents-cli-" });
  const sync = (...args: string[]) => runSync(home, args);
  try {
    await t.step("the presets and the demo agent, with what each needs", async () => {
      const result = await sync("agents");
      assert.equal(result.code, 0, result.stderr);
      assert.match(
        result.stdout,
        /^claude-code\tpreset\tnpx -y --prefer-offline @zed-industries\/claude-agent-acp@0\.23\.1$/m,
      );
      assert.match(
        result.stdout,
        /^codex\tpreset\tnpx -y --prefer-offline @zed-industries\/codex-acp@0\.16\.0$/m,
      );
      assert.match(
        result.stdout,
        /^gemini\tpreset\tnpx -y --prefer-offline @google\/gemini-cli@0\.61\.0 --acp$/m,
      );
      assert.match(result.stdout, /^goose\tpreset\tgoose acp$/m);
      assert.match(result.stdout, /^demo\tbundled\t.* run --quiet .*demo_agent\.ts$/m);
    });

    await t.step("add replaces a preset; remove brings it back", async () => {
      const added = await sync(
        "agents",
        "add",
        "goose",
        "--command",
        "/opt/goose",
        "--arg",
        "acp",
        "--arg=--verbose",
        "--env",
        "GOOSE_PROVIDER=ollama",
      );
      assert.equal(added.code, 0, added.stderr);
      assert.equal(added.stdout.trim(), "Added goose: /opt/goose acp --verbose");
      const listed = await sync("agents");
      assert.match(
        listed.stdout,
        /^goose\tadded\t\/opt\/goose acp --verbose\t\(env: GOOSE_PROVIDER\)$/m,
      );
      assert.ok(!listed.stdout.includes("ollama"), "values of the environment are not shown");
      const removed = await sync("agents", "remove", "goose");
      assert.equal(removed.code, 0, removed.stderr);
      assert.match(removed.stdout, /Removed your goose; the preset goose is back: goose acp/);
    });

    await t.step("removing a preset removes the keys kept beside it, naming them", async () => {
      const kv = await openInstallation(home);
      try {
        await setAgentEnv(kv, "codex", "OPENAI_API_KEY", "sk-very-secret");
      } finally {
        kv.close();
      }
      const removed = await sync("agents", "remove", "codex");
      assert.equal(removed.code, 0, removed.stderr);
      assert.equal(
        removed.stdout.trim(),
        "Removed OPENAI_API_KEY kept beside the codex preset; it stays the preset",
      );
      assert.ok(!removed.stdout.includes("sk-very-secret"));
      const listed = await sync("agents");
      assert.match(listed.stdout, /^codex\tpreset\tnpx -y --prefer-offline \S+$/m);
    });

    await t.step(
      "a preset with nothing beside it is refused, and bad words are refused",
      async () => {
        const preset = await sync("agents", "remove", "codex");
        assert.equal(preset.code, 1);
        // In words, with no error class in front.
        assert.match(
          preset.stderr,
          /^sync agents: codex is a preset and cannot be removed, and no key is kept beside it: there is nothing to remove/,
        );
        const noCommand = await sync("agents", "add", "mine");
        assert.equal(noCommand.code, 2);
        assert.match(noCommand.stderr, /needs a command/);
        const badEnv = await sync("agents", "add", "mine", "--command", "x", "--env", "NOEQUALS");
        assert.equal(badEnv.code, 2);
        assert.match(badEnv.stderr, /--env takes NAME=value/);
        const unknown = await sync("agents", "remove", "nobody");
        assert.equal(unknown.code, 1);
        assert.match(unknown.stderr, /no agent named nobody/);
      },
    );
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("`sync serve` performs ordered work, and a restart leaves it interrupted for a person", async (t) => {
  const root = await Deno.makeTempDir({ prefix: "sync-work-serve-" });
  const home = join(root, "home");
  const project = join(root, "project");
  await Deno.mkdir(project);
  const sync = (...args: string[]) => runSync(home, args);
  const triage = fileURLToPath(new URL("../../../extensions/triage", import.meta.url));
  const issues = fileURLToPath(new URL("../../../extensions/issues", import.meta.url));
  let serve = new ServeProcess(home);
  try {
    await serve.url();
    const waitForChat = async (pattern: RegExp) => {
      const until = Date.now() + 30_000;
      let last = "";
      while (Date.now() < until) {
        last = (await sync("chat", "--project", project)).stdout;
        if (pattern.test(last)) return last;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      throw new Error(`sync chat never showed ${pattern}: ${last}`);
    };

    let key = "";
    await t.step("triage's handler orders a session that serve begins at once", async () => {
      for (const folder of [issues, triage]) {
        const installed = await sync("install", folder, "--project", project, "--approve");
        assert.equal(installed.code, 0, installed.stderr);
      }
      const written = await sync(
        "write",
        "--project",
        project,
        "--key",
        "issues.issue/7",
        "--title",
        "Slow save",
        "--fields",
        '{"number":7,"state":"open"}',
        "--content",
        "Saving takes a minute.",
      );
      assert.equal(written.code, 0, written.stderr);
      const called = await sync("call", "triage", "triage.sweep", "--project", project);
      assert.equal(called.code, 0, called.stderr);
      // The demo agent asks a permission, and the session waits for a person.
      const listed = await waitForChat(/\twaiting\tdemo\tTriage issue 7: Slow save/);
      assert.match(listed, /^Triage\n {2}(work-\S+)\twaiting/m);
      key = listed.match(/ {2}(work-\S+)\twaiting/)![1];
    });

    await t.step(
      "stopped and started again, the session is interrupted; nothing resumes",
      async () => {
        const stopped = await serve.stop("SIGTERM");
        assert.equal(stopped.success, true, serve.lines.join("\n"));
        serve = new ServeProcess(home);
        const url = new URL(await serve.url());
        const listed = await waitForChat(/\tinterrupted\t/);
        assert.match(listed, new RegExp(`${key}\\tinterrupted\\tdemo`));
        assert.match(listed, /Sync stopped while this session was waiting/);

        const token = url.searchParams.get("token")!;
        const response = await fetch(new URL(`/api/chat/sessions/${key}/continue`, url), {
          method: "POST",
          headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
          body: JSON.stringify({ project: await Deno.realPath(project) }),
        });
        assert.equal(response.status, 200, await response.clone().text());
        await response.body?.cancel();
        await waitForChat(new RegExp(`${key}\\tended\\tdemo`));
      },
    );

    await t.step("kept, the conversation is a record in the project", async () => {
      const kept = await sync("chat", "keep", key, "--project", project);
      assert.equal(kept.code, 0, kept.stderr);
      assert.equal(kept.stdout.trim(), `Kept ${key} as chat.conversation/${key}, revision 1`);
      // Kept again with nothing new, it says so and writes no new revision.
      const again = await sync("chat", "keep", key, "--project", project);
      assert.equal(again.code, 0, again.stderr);
      assert.equal(
        again.stdout.trim(),
        `Nothing changed since ${key} was kept: chat.conversation/${key} stays at revision 1`,
      );
      const records = await sync("records", "--project", project, "--kind", "chat.conversation");
      const record = JSON.parse(records.stdout.trim());
      assert.equal(record.title, "Triage issue 7: Slow save");
      assert.equal(record.fields.about, "issues.issue/7");
      assert.equal(record.revision, 1);
    });
  } finally {
    await serve.stop("SIGTERM");
    await Deno.remove(root, { recursive: true });
  }
});
