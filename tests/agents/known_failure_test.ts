import assert from "node:assert/strict";
import { knownFailure } from "../../runtime/agents/known_failure.ts";

// The agents' words below are what the pinned adapters said on this kind of
// machine (no credentials; no network but the npm registry). The suite in
// real_adapters_test.ts checks the same on the running adapters.

const CLAUDE = ["npx", "-y", "--prefer-offline", "@zed-industries/claude-agent-acp@0.23.1"];
const CODEX = ["npx", "-y", "--prefer-offline", "@zed-industries/codex-acp@0.16.0"];
const GEMINI = ["npx", "-y", "--prefer-offline", "@google/gemini-cli@0.61.0", "--acp"];

Deno.test("`knownFailure()` says the cause and the fix of the failures Sync knows", async (t) => {
  await t.step("claude-code without credentials: sign in, or an API key", () => {
    const sentence = knownFailure({
      agent: "claude-code",
      command: CLAUDE,
      step: "session/new",
      code: -32603,
      message: "Internal error",
      data: { details: "Query closed before response received" },
      stderrTail: "Error handling request {\n  method: 'session/new',\n} {\n" +
        "  code: -32603,\n  message: 'Internal error',\n" +
        "  data: { details: 'Query closed before response received' }\n}\n",
    });
    assert.match(sentence ?? "", /^The agent claude-code could not open a session: /);
    assert.match(sentence ?? "", /Claude Code is not signed in, or cannot reach Anthropic/);
    assert.match(
      sentence ?? "",
      /`npx -y --prefer-offline @zed-industries\/claude-agent-acp@0\.23\.1 --cli` in a terminal and typing \/login/,
    );
    assert.ok(
      sentence?.includes(
        "sync agents add claude-code --command npx --arg=-y --arg=--prefer-offline " +
          "--arg=@zed-industries/claude-agent-acp@0.23.1 --env ANTHROPIC_API_KEY=<your key>",
      ),
    );
  });

  await t.step("codex without network: the turn could not reach OpenAI", () => {
    const sentence = knownFailure({
      agent: "codex",
      command: CODEX,
      step: "the turn",
      code: -32603,
      message: "Internal error",
      data: {
        message: "stream disconnected before completion: error sending request for url " +
          "(https://api.openai.com/v1/responses)",
        codex_error_info: "other",
      },
      stderrTail: "ERROR codex_acp::thread: Unhandled error during turn: stream disconnected",
    });
    assert.equal(
      sentence,
      "The agent codex could not reach OpenAI during the turn: stream disconnected before " +
        "completion: error sending request for url (https://api.openai.com/v1/responses). " +
        "Check this computer's network connection (codex also goes through the proxy in " +
        "HTTPS_PROXY when one is set), then send the message again.",
    );
  });

  await t.step("codex without a key: the key to add, or the sign-in to run", () => {
    const sentence = knownFailure({
      agent: "codex",
      command: CODEX,
      step: "session/new",
      code: -32000,
      message: "Authentication required",
      stderrTail: "",
    });
    assert.match(sentence ?? "", /^The agent codex needs an OpenAI API key or a ChatGPT sign-in/);
    assert.match(sentence ?? "", /--env OPENAI_API_KEY=<your key>/);
  });

  await t.step("gemini without network, and without a key", () => {
    const offline = knownFailure({
      agent: "gemini",
      command: GEMINI,
      step: "the turn",
      code: 500,
      message: "exception TypeError: fetch failed sending request",
      stderrTail: "",
    });
    assert.equal(
      offline,
      "The agent gemini could not reach Google's Gemini API during the turn: exception " +
        "TypeError: fetch failed sending request. Check this computer's network connection, " +
        "then send the message again.",
    );
    for (
      const message of ["Gemini API key is missing or not configured.", "Authentication required"]
    ) {
      const sentence = knownFailure({
        agent: "gemini",
        command: GEMINI,
        step: "session/new",
        code: -32000,
        message,
        stderrTail: "",
      });
      assert.match(sentence ?? "", /^The agent gemini needs a Gemini API key or a Google sign-in/);
      assert.match(
        sentence ?? "",
        /run `npx -y --prefer-offline @google\/gemini-cli@0\.61\.0` in a terminal/,
      );
    }
  });

  await t.step("an adapter npx cannot fetch: no registry, or no such package", () => {
    for (const code of ["ENOTFOUND", "EAI_AGAIN", "ETIMEDOUT", "ENOTCACHED"]) {
      const sentence = knownFailure({
        agent: "codex",
        command: CODEX,
        step: "initialize",
        stderrTail: `npm error code ${code}\nnpm error request to https://registry.npmjs.org/` +
          `@zed-industries%2fcodex-acp failed\n`,
      });
      assert.equal(
        sentence,
        "The agent codex cannot start: npx could not download " +
          "@zed-industries/codex-acp@0.16.0 because the npm registry cannot be reached " +
          `(npm error ${code}). Connect this computer to the internet once so that npx can ` +
          "fetch it (npx keeps it for later runs), or install it with npm install -g " +
          "@zed-industries/codex-acp@0.16.0; then continue.",
      );
    }
    const missing = knownFailure({
      agent: "claude-code",
      command: ["npx", "-y", "@zed-industries/claude-agent-acp@99.0.0"],
      step: "initialize",
      stderrTail: "npm error code ETARGET\nnpm error notarget No matching version found for " +
        "@zed-industries/claude-agent-acp@99.0.0.\n",
    });
    assert.match(
      missing ?? "",
      /^The agent claude-code cannot start: npx could not find @zed-industries\/claude-agent-acp@99\.0\.0 on the npm registry \(npm error ETARGET\)/,
    );
    const unknown = knownFailure({
      agent: "mine",
      command: ["npx", "-y", "@zed-industries/no-such-acp-xyz"],
      step: "initialize",
      stderrTail: "npm error code E404\nnpm error 404 Not Found - GET https://registry.npmjs.org/" +
        "@zed-industries%2fno-such-acp-xyz\n",
    });
    assert.match(unknown ?? "", /npm error E404\)/);
  });

  await t.step("a program a wrapper runs is not installed", () => {
    const sentence = knownFailure({
      agent: "mine",
      command: ["/bin/sh", "-c", "my-agent --acp"],
      step: "initialize",
      stderrTail: "/bin/sh: 1: my-agent: not found\n",
    });
    assert.match(
      sentence ?? "",
      /^The agent mine cannot start: the program my-agent it runs is not installed/,
    );
  });

  await t.step("a failure it does not know gets no sentence", () => {
    assert.equal(
      knownFailure({
        agent: "demo",
        command: ["deno", "run", "demo_agent.ts"],
        step: "the turn",
        code: -32603,
        message: "Internal error",
        stderrTail: "boom",
      }),
      null,
    );
    assert.equal(
      knownFailure({
        agent: "claude-code",
        command: CLAUDE,
        step: "the turn",
        code: -32603,
        message: "Internal error",
        data: { details: "something else" },
        stderrTail: "",
      }),
      null,
    );
  });
});

Deno.test("`knownFailure()` says what docs/agents.md quotes, word for word", async () => {
  const docs = await Deno.readTextFile(new URL("../../docs/agents.md", import.meta.url));
  const said = [
    knownFailure({
      agent: "claude-code",
      command: CLAUDE,
      step: "session/new",
      code: -32603,
      message: "Internal error",
      data: { details: "Query closed before response received" },
      stderrTail: "",
    }),
    knownFailure({
      agent: "codex",
      command: CODEX,
      step: "session/new",
      code: -32000,
      message: "Authentication required",
      stderrTail: "",
    }),
    knownFailure({
      agent: "codex",
      command: CODEX,
      step: "the turn",
      code: -32603,
      message: "Internal error",
      data: {
        message: "stream disconnected before completion: error sending request for url " +
          "(https://api.openai.com/v1/responses)",
      },
      stderrTail: "",
    }),
    knownFailure({
      agent: "gemini",
      command: GEMINI,
      step: "session/new",
      code: -32000,
      message: "Gemini API key is missing or not configured.",
      stderrTail: "",
    }),
    knownFailure({
      agent: "gemini",
      command: GEMINI,
      step: "the turn",
      code: 500,
      message: "exception TypeError: fetch failed sending request",
      stderrTail: "",
    }),
    knownFailure({
      agent: "codex",
      command: CODEX,
      step: "initialize",
      stderrTail: "npm error code ENOTFOUND\n",
    }),
    knownFailure({
      agent: "codex",
      command: CODEX,
      step: "initialize",
      stderrTail: "npm error code E404\n",
    }),
  ];
  for (const sentence of said) {
    assert.ok(
      sentence !== null && docs.includes(`"${sentence}"`),
      `docs/agents.md quotes: ${sentence}`,
    );
  }
});
