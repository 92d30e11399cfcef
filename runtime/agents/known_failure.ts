/**
 * Known failures of the agents Sync has presets for, in words: given what
 * failed (the step, the agent's error, its stderr), one sentence naming the
 * agent, the cause and the fix, such as "The agent claude-code could not
 * open a session: Claude Code is not signed in…". Recognised from the
 * agents' own error codes and words, as the pinned adapters say them
 * (docs/agents.md lists each), and from what `npx` prints when it cannot
 * fetch an adapter. A failure not recognised gets no sentence: the agent's
 * own words say it.
 *
 * @module
 */

/** What is known of a failure when it happens. */
export interface FailureFacts {
  /** The agent's name in Sync, such as `claude-code`. */
  agent: string;
  /** The command it runs as: the program, then its arguments. */
  command: readonly string[];
  /** The step that failed: `initialize`, `session/new`, `session/load`, `the turn`. */
  step: string;
  /** The JSON-RPC error code, when the agent answered with an error. */
  code?: number;
  /** The agent's error message, when it answered with one. */
  message?: string;
  /** The agent's error data, when it gave some. */
  data?: unknown;
  /** The last of its stderr. */
  stderrTail: string;
}

/** Which adapter runs: from its command, else from its name (a preset's). */
type Adapter = "claude" | "codex" | "gemini" | "other";

/** npm's error codes for a registry it cannot reach, or a package missing from its cache when offline. */
const NO_REGISTRY =
  /npm (?:error|ERR!) (?:code )?(ENOTFOUND|EAI_AGAIN|ETIMEDOUT|ECONNREFUSED|ECONNRESET|ENETUNREACH|EHOSTUNREACH|ENOTCACHED)\b/;
/** npm's error codes for a package or version the registry does not have. */
const NOT_ON_REGISTRY = /npm (?:error|ERR!) (?:code )?(E404|ETARGET)\b/;
/** A shell saying a program is missing. */
const NOT_FOUND_BY_SHELL = /(?:^|\n)(?:[^\n]*: )?([^\s:]+): (?:command )?not found\s*(?:\n|$)/;

/**
 * The sentence for a known failure: what happened, why, and what to do.
 *
 * @param facts The failure: the agent, its command, the step, its error and stderr.
 * @returns The sentence, or null when the failure is not one Sync knows.
 */
export function knownFailure(facts: FailureFacts): string | null {
  return npxFailure(facts) ?? missingProgram(facts) ?? adapterFailure(facts);
}

/** `npx` could not fetch the adapter: no registry, or no such package. */
function npxFailure(facts: FailureFacts): string | null {
  if (!isNpx(facts.command)) return null;
  const pkg = npxPackage(facts.command) ?? "its package";
  const offline = NO_REGISTRY.exec(facts.stderrTail);
  if (offline) {
    return `The agent ${facts.agent} cannot start: npx could not download ${pkg} because the ` +
      `npm registry cannot be reached (npm error ${offline[1]}). Connect this computer to the ` +
      `internet once so that npx can fetch it (npx keeps it for later runs), or install it ` +
      `with npm install -g ${pkg}; then continue.`;
  }
  const missing = NOT_ON_REGISTRY.exec(facts.stderrTail);
  if (missing) {
    return `The agent ${facts.agent} cannot start: npx could not find ${pkg} on the npm ` +
      `registry (npm error ${missing[1]}). Check the package name and version in the agent's ` +
      `definition (sync agents lists it); for a preset you replaced, remove your definition ` +
      `with sync agents remove ${facts.agent} to bring the preset back.`;
  }
  return null;
}

/** A program the agent's command runs is not installed (a shell or wrapper said so). */
function missingProgram(facts: FailureFacts): string | null {
  if (facts.step !== "initialize") return null;
  const found = NOT_FOUND_BY_SHELL.exec(facts.stderrTail);
  if (!found) return null;
  return `The agent ${facts.agent} cannot start: the program ${found[1]} it runs is not ` +
    `installed (or not on PATH). Install it, or change the agent's definition to a program ` +
    `that is (sync agents add ${facts.agent} --command <program>); then continue.`;
}

/** What the pinned adapters say when they have no credentials or no network. */
function adapterFailure(facts: FailureFacts): string | null {
  const said = agentWords(facts);
  const run = facts.command.join(" ");
  switch (adapterOf(facts)) {
    case "claude":
      if (/Query closed before response received/i.test(said)) {
        return `The agent ${facts.agent} could not open a session: Claude Code is not signed ` +
          `in, or cannot reach Anthropic (its adapter says only "Query closed before response ` +
          `received"). Sign in by running \`${run} --cli\` in a terminal and typing /login ` +
          `(or \`claude /login\` where Claude Code is installed), or give the agent an API key: ` +
          `${addWithKey(facts, "ANTHROPIC_API_KEY")}; check that this computer reaches ` +
          `api.anthropic.com; then continue.`;
      }
      return null;
    case "codex":
      if (
        /stream disconnected before completion|error sending request for url|os error 111|dns error|failed to lookup address/i
          .test(said)
      ) {
        return `The agent ${facts.agent} could not reach OpenAI during ${facts.step}: ` +
          `${headline(facts)}. Check this computer's network connection (codex also goes ` +
          `through the proxy in HTTPS_PROXY when one is set), then send the message again.`;
      }
      if (asksSignIn(facts)) {
        return `The agent ${facts.agent} needs an OpenAI API key or a ChatGPT sign-in: add ` +
          `OPENAI_API_KEY (or CODEX_API_KEY) to its definition ` +
          `(${addWithKey(facts, "OPENAI_API_KEY")}), or sign in with ChatGPT by running ` +
          `\`npx -y @openai/codex login\` in a terminal; then continue.`;
      }
      return null;
    case "gemini":
      if (/fetch failed|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|ECONNREFUSED|ECONNRESET/.test(said)) {
        return `The agent ${facts.agent} could not reach Google's Gemini API during ` +
          `${facts.step}: ${headline(facts)}. Check this computer's network connection, then ` +
          `send the message again.`;
      }
      if (asksSignIn(facts)) {
        return `The agent ${facts.agent} needs a Gemini API key or a Google sign-in: add ` +
          `GEMINI_API_KEY to its definition (${addWithKey(facts, "GEMINI_API_KEY")}), or ` +
          `run \`${gemini(facts.command)}\` in a terminal once and choose "Log in with ` +
          `Google"; then continue.`;
      }
      return null;
    default:
      return null;
  }
}

/**
 * The agent answered that it wants a sign-in: ACP's auth-required code
 * (-32000), whatever its words (codex: "Authentication required"; gemini:
 * "Gemini API key is missing or not configured.").
 */
function asksSignIn(facts: FailureFacts): boolean {
  return facts.code === -32000 || /^Authentication required/i.test(facts.message ?? "");
}

/**
 * The command that gives the agent a key: its own command again, with the
 * key in its environment (`--arg=…`, since its arguments may start with `-`).
 */
function addWithKey(facts: FailureFacts, variable: string): string {
  const [program = facts.agent, ...args] = facts.command;
  return `sync agents add ${facts.agent} --command ${program}` +
    args.map((arg) => ` --arg=${arg}`).join("") + ` --env ${variable}=<your key>`;
}

/** Everything the agent said of the failure: its error's message and data, and its stderr. */
function agentWords(facts: FailureFacts): string {
  const data = facts.data === undefined || facts.data === null
    ? ""
    : typeof facts.data === "string"
    ? facts.data
    : JSON.stringify(facts.data);
  return [facts.message ?? "", data, facts.stderrTail].filter((s) => s !== "").join("\n");
}

function adapterOf(facts: FailureFacts): Adapter {
  const command = facts.command.join(" ");
  if (/claude-agent-acp|claude-code-acp/.test(command)) return "claude";
  if (/codex-acp/.test(command)) return "codex";
  if (/(?:^|[\s/])gemini(?:\s|$)|@google\/gemini-cli/.test(command)) return "gemini";
  if (facts.agent === "claude-code") return "claude";
  if (facts.agent === "codex" || facts.agent === "gemini") return facts.agent;
  return "other";
}

function isNpx(command: readonly string[]): boolean {
  const program = command[0] ?? "";
  return /(?:^|\/)npx(?:\.cmd)?$/.test(program);
}

/** The package an `npx` command runs: its first argument that is not an option. */
function npxPackage(command: readonly string[]): string | null {
  return command.slice(1).find((arg) => !arg.startsWith("-")) ?? null;
}

/** How a person runs Gemini CLI in a terminal, from the command the agent runs as. */
function gemini(command: readonly string[]): string {
  return command.filter((arg) => arg !== "--acp" && arg !== "--experimental-acp").join(" ");
}

/**
 * The agent's own words for the failure, cut short: its error data's
 * `message` or `details` (codex puts the cause there under "Internal
 * error"), else its error's message, else its last line on stderr.
 */
function headline(facts: FailureFacts): string {
  const data = typeof facts.data === "object" && facts.data !== null
    ? facts.data as Record<string, unknown>
    : {};
  const inData = [data.message, data.details].find((v) => typeof v === "string");
  const lines = facts.stderrTail.split("\n").filter((l) => l.trim() !== "");
  const line = String(inData ?? facts.message ?? lines.at(-1) ?? "").trim();
  return line.length <= 300 ? line : `${line.slice(0, 299)}…`;
}
