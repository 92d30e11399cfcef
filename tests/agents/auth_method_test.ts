/**
 * The sign-in methods the pinned adapters list, as Sync keeps them and as a
 * person is shown them: each method object is copied from the adapter's
 * source.
 */
import assert from "node:assert/strict";
import type * as acp from "@agentclientprotocol/sdk";
import { authMethodOf } from "../../runtime/agents/auth_method.ts";
import { signInWays } from "../../runtime/agents/sign_in_ways.ts";

/**
 * `@google/gemini-cli` 0.61.0, `GeminiAgent.initialize` in
 * `packages/cli/src/acp/acpRpcDispatcher.ts` (bundled in
 * `bundle/gemini-3HFX2LNT.js`), with `AuthType`'s values in place.
 */
const GEMINI_METHODS = [
  {
    id: "oauth-personal",
    name: "Log in with Google",
    description: "Log in with your Google account",
  },
  {
    id: "gemini-api-key",
    name: "Gemini API key",
    description: "Use an API key with Gemini Developer API",
    _meta: { "api-key": { provider: "google" } },
  },
  { id: "vertex-ai", name: "Vertex AI", description: "Use an API key with Vertex AI GenAI API" },
  {
    id: "gateway",
    name: "AI API Gateway",
    description: "Use a custom AI API Gateway",
    _meta: { gateway: { protocol: "google", restartRequired: "false" } },
  },
] as acp.AuthMethod[];

/**
 * `@zed-industries/claude-agent-acp` 0.23.1, `initialize` in
 * `dist/acp-agent.js`, for a client that takes terminal methods and gateways.
 */
const CLAUDE_METHODS = [
  {
    description: "Run `claude /login` in the terminal",
    name: "Log in with Claude",
    id: "claude-login",
    type: "terminal",
    args: ["--cli"],
  },
  {
    id: "gateway",
    name: "Custom model gateway",
    description: "Use a custom gateway to authenticate and access models",
    _meta: { gateway: { protocol: "anthropic" } },
  },
] as acp.AuthMethod[];

Deno.test("`authMethodOf()` knows which variables the adapters' own methods read", async (t) => {
  await t.step("gemini's API key method reads GEMINI_API_KEY, though it does not say so", () => {
    const kept = GEMINI_METHODS.map(authMethodOf);
    assert.deepEqual(kept.find((m) => m.id === "gemini-api-key")?.envVars, [{
      name: "GEMINI_API_KEY",
    }]);
    // Its other methods read no one key: no form for them.
    for (const id of ["oauth-personal", "vertex-ai", "gateway"]) {
      assert.equal(kept.find((m) => m.id === id)?.envVars, undefined, id);
    }
  });
  await t.step("claude's gateway reads no key; its login is a command to run", () => {
    const [login, gateway] = CLAUDE_METHODS.map(authMethodOf);
    assert.deepEqual(login.terminal, { args: ["--cli"], env: {} });
    assert.equal(gateway.envVars, undefined);
  });
  await t.step("a description that names its variable still wins over the table", () => {
    const method = authMethodOf({
      id: "gemini-api-key",
      name: "Use Gemini API key",
      description: "Requires setting the `GOOGLE_GENAI_KEY` environment variable",
    } as acp.AuthMethod);
    assert.deepEqual(method.envVars, [{ name: "GOOGLE_GENAI_KEY" }]);
  });
});

Deno.test("`signInWays()` gives gemini's API key method a key to add", () => {
  const ways = signInWays(GEMINI_METHODS.map(authMethodOf), {
    agentName: "gemini",
    agentCommand: ["npx", "-y", "@google/gemini-cli@0.61.0", "--acp"],
  });
  assert.deepEqual(ways.find((w) => w.id === "gemini-api-key"), {
    id: "gemini-api-key",
    name: "Gemini API key",
    description: "Use an API key with Gemini Developer API",
    envVars: [{ name: "GEMINI_API_KEY" }],
  });
});
