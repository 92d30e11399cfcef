/**
 * The agents a session can be raised with: named definitions (a program, its
 * arguments, extra environment) kept in the installation, over the presets
 * Sync knows. A preset is a definition, never an install: Sync runs the
 * program when work needs it, and a missing program fails the work with a
 * reason that says what to install. A person's definition with a preset's
 * name replaces it; removing that brings the preset back. Presets themselves
 * cannot be removed.
 *
 * @module
 */
import { ConflictError, InvalidInputError, NotFoundError } from "../errors.ts";
import { cutText } from "../internal/cut_text.ts";
import { AGENT_DEFINITION_LIMITS } from "../limits.ts";
import { demoAgentCommand } from "./demo_agent_command.ts";
import { agentDefinitionKey, agentDefinitionsPrefix, agentEnvKey } from "./keys.ts";

/** A named agent: the program Sync starts, in the project folder, to speak ACP with. */
export interface AgentDefinition {
  /** Its name, such as `claude-code`; orders name it in `agent`. */
  name: string;
  /** The program: a name looked for on PATH (`npx`), or a path. */
  command: string;
  /** Its arguments. */
  args: string[];
  /** Extra environment variables it is given, over Sync's own. */
  env: Record<string, string>;
}

/** A definition as listed: where it comes from and what it needs. */
export interface ListedAgent extends AgentDefinition {
  /** `preset`: one Sync knows; `added`: a person added or replaced it; `bundled`: the demo agent. */
  origin: "preset" | "added" | "bundled";
  /** One line on what it is and what it needs. */
  about: string;
  /** What to install when its program is missing. */
  install: string;
}

interface Preset {
  command: string;
  args: string[];
  about: string;
  install: string;
}

/**
 * The presets Sync knows, by name. None of them is installed by Sync. Each
 * adapter's version is pinned: these are the versions Sync's tests run
 * (tests/agents/real_adapters_test.ts), and a newer one may change its ACP
 * flag or its errors, which Sync recognises (`known_failure.ts`). Gemini CLI
 * runs through `npx` too, pinned, rather than a `gemini` a person installed:
 * an installed one may be older than `--acp` (it had `--experimental-acp`)
 * or newer than what was tried; all three then need only Node.js, and a
 * person who wants their own `gemini` adds a definition of that name.
 * `--prefer-offline`: npx takes the pinned version's metadata from its
 * cache when it has it, rather than asking the registry first (which,
 * without network, it retries for over a minute); an exact version's
 * metadata does not change, and the first run still downloads it. The
 * agents' sign-ins live in the home folder (`~/.claude`, `~/.codex`,
 * `~/.gemini`), so one made in a terminal serves the preset too.
 */
const PRESETS: Readonly<Record<string, Preset>> = {
  "claude-code": {
    command: "npx",
    args: ["-y", "--prefer-offline", "@zed-industries/claude-agent-acp@0.23.1"],
    about: "Claude Code through Zed's ACP adapter; needs Node.js (npx) and a Claude sign-in " +
      "(claude /login) or an ANTHROPIC_API_KEY in its definition.",
    install: "install Node.js 20 or later (it brings npx): https://nodejs.org; then sign in " +
      "with `npx -y @zed-industries/claude-agent-acp@0.23.1 --cli` and /login, or add " +
      "ANTHROPIC_API_KEY to its definition",
  },
  codex: {
    command: "npx",
    args: ["-y", "--prefer-offline", "@zed-industries/codex-acp@0.16.0"],
    about: "OpenAI Codex through Zed's ACP adapter; needs Node.js (npx) and an " +
      "OPENAI_API_KEY (or CODEX_API_KEY) in its definition, or a ChatGPT sign-in.",
    install: "install Node.js 20 or later (it brings npx): https://nodejs.org; then add " +
      "OPENAI_API_KEY to its definition, or sign in with `npx -y @openai/codex login`",
  },
  gemini: {
    command: "npx",
    args: ["-y", "--prefer-offline", "@google/gemini-cli@0.61.0", "--acp"],
    about: "Gemini CLI in its ACP mode; needs Node.js 20 or later (npx) and a GEMINI_API_KEY " +
      "in its definition, or a Google sign-in.",
    install: "install Node.js 20 or later (it brings npx): https://nodejs.org; then add " +
      "GEMINI_API_KEY to its definition, or run `npx -y @google/gemini-cli@0.61.0` once " +
      'and choose "Log in with Google"',
  },
  goose: {
    command: "goose",
    args: ["acp"],
    about: "goose in its ACP mode; needs the goose program and a model provider configured.",
    install: "install goose: https://block.github.io/goose/docs/getting-started/installation",
  },
};

/** The bundled demo agent's name. */
const DEMO = "demo";

const NAME_PATTERN = /^[a-z0-9][a-z0-9._-]*$/;
const ENV_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The preset or bundled definition named `name`, or null. */
function builtIn(name: string): ListedAgent | null {
  if (name === DEMO) {
    const command = demoAgentCommand();
    return {
      name,
      command: command.command,
      args: [...command.args],
      env: {},
      origin: "bundled",
      about: "The demo agent shipped with Sync: no key, no network; for trying work and Chat.",
      install: "it ships with Sync; run Sync from a whole checkout",
    };
  }
  const preset = Object.hasOwn(PRESETS, name) ? PRESETS[name] : undefined;
  if (!preset) return null;
  return {
    name,
    command: preset.command,
    args: [...preset.args],
    env: {},
    origin: "preset",
    about: preset.about,
    install: preset.install,
  };
}

/** What is stored for a person's definition. */
function added(definition: AgentDefinition): ListedAgent {
  const replaced = builtIn(definition.name);
  return {
    ...definition,
    origin: "added",
    about: replaced
      ? `Your definition, in place of the ${replaced.origin} one. Remove it to bring that back.`
      : "Your definition.",
    install: `install ${definition.command}, or change the definition: ` +
      `sync agents add ${definition.name} --command <program>`,
  };
}

/**
 * Every agent: the presets and the demo agent, each replaced by a person's
 * definition of the same name, and the person's own; by name.
 *
 * @param kv The installation's KV.
 */
export async function listAgents(kv: Deno.Kv): Promise<ListedAgent[]> {
  const byName = new Map<string, ListedAgent>();
  for (const name of [DEMO, ...Object.keys(PRESETS)]) {
    const agent = builtIn(name)!;
    agent.env = (await kv.get<Record<string, string>>(agentEnvKey(name))).value ?? {};
    byName.set(name, agent);
  }
  for await (const entry of kv.list<AgentDefinition>({ prefix: agentDefinitionsPrefix() })) {
    byName.set(entry.value.name, added(entry.value));
  }
  return [...byName.values()].sort((a, b) => a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
}

/**
 * The agent named `name`: a person's definition, else the preset or the demo agent.
 *
 * @param kv The installation's KV.
 * @param name The agent's name.
 * @returns It, or null when there is none by that name.
 */
export async function readAgent(kv: Deno.Kv, name: string): Promise<ListedAgent | null> {
  const stored = (await kv.get<AgentDefinition>(agentDefinitionKey(name))).value;
  if (stored) return added(stored);
  const agent = builtIn(name);
  if (agent) agent.env = (await kv.get<Record<string, string>>(agentEnvKey(name))).value ?? {};
  return agent;
}

/**
 * Sets one environment variable of an agent (such as the key a sign-in
 * method reads), or removes it (`value` null): in a person's definition,
 * or, for a preset or the demo agent not replaced, beside it, so the preset
 * stays the preset. Listings name the variable, never its value.
 *
 * @param kv The installation's KV.
 * @param name The agent's name.
 * @param variable The variable's name, such as `OPENAI_API_KEY`.
 * @param value Its value, or null to remove it.
 * @returns The agent, as listed.
 * @throws {NotFoundError} when there is no agent by that name.
 * @throws {InvalidInputError} when the variable or its value is not one a definition takes.
 */
export async function setAgentEnv(
  kv: Deno.Kv,
  name: string,
  variable: string,
  value: string | null,
): Promise<ListedAgent> {
  const definitionKey = agentDefinitionKey(name);
  const current = await kv.get<AgentDefinition>(definitionKey);
  const preset = builtIn(name);
  if (current.value === null && preset === null) {
    throw new NotFoundError(`There is no agent named ${name}; sync agents lists them`);
  }
  const envKey = agentEnvKey(name);
  const kept = current.value === null ? await kv.get<Record<string, string>>(envKey) : null;
  if (value !== null) checkEnvEntry(name, variable, value);
  // Entries, not property writes: a variable named `__proto__` must not reach an object's prototype.
  const entries = Object.entries(current.value?.env ?? kept?.value ?? {})
    .filter(([key]) => key !== variable);
  if (value !== null) entries.push([variable, value]);
  const env = Object.fromEntries(entries);
  // Checked as a whole definition would be: the same names, sizes and counts.
  const checked = parseAgentDefinition({ ...(current.value ?? preset!), name, env });
  const op = kv.atomic().check(current);
  if (current.value !== null) op.set(definitionKey, checked);
  else if (Object.keys(checked.env).length === 0) op.check(kept!).delete(envKey);
  else op.check(kept!).set(envKey, checked.env);
  if (!(await op.commit()).ok) {
    throw new ConflictError(
      `The agent ${name} was changed by someone else meanwhile; look at it and try again`,
    );
  }
  return (await readAgent(kv, name))!;
}

/**
 * Checks a definition a person gives, naming each wrong part.
 *
 * @param value What was given: `{ name, command, args?, env? }`.
 * @returns The definition, with `args` and `env` filled in.
 * @throws {InvalidInputError} naming the part and what it takes.
 */
export function parseAgentDefinition(value: unknown): AgentDefinition {
  const limits = AGENT_DEFINITION_LIMITS;
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new InvalidInputError("An agent definition is an object: { name, command, args?, env? }");
  }
  const { name, command, args = [], env = {} } = value as Record<string, unknown>;
  if (
    typeof name !== "string" || !NAME_PATTERN.test(name) || name.length > limits.maxNameChars
  ) {
    throw new InvalidInputError(
      `An agent's name is lowercase letters, digits, ".", "_" and "-", starting with a letter ` +
        `or digit, at most ${limits.maxNameChars} characters; got ${JSON.stringify(name ?? null)}`,
    );
  }
  if (
    typeof command !== "string" || command.trim() === "" ||
    command.length > limits.maxCommandChars || command.includes("\0")
  ) {
    throw new InvalidInputError(
      `The agent ${name} needs a command: the program to run, such as npx or /usr/local/bin/goose`,
    );
  }
  if (
    !Array.isArray(args) || args.length > limits.maxArgs ||
    args.some((a) => typeof a !== "string" || a.length > limits.maxArgChars || a.includes("\0"))
  ) {
    throw new InvalidInputError(
      `The agent ${name}'s args are a list of at most ${limits.maxArgs} strings`,
    );
  }
  if (typeof env !== "object" || env === null || Array.isArray(env)) {
    throw new InvalidInputError(`The agent ${name}'s env is an object of NAME: value`);
  }
  const entries = Object.entries(env);
  if (entries.length > limits.maxEnv) {
    throw new InvalidInputError(
      `The agent ${name} may set at most ${limits.maxEnv} environment variables`,
    );
  }
  for (const [key, v] of entries) checkEnvEntry(name, key, v);
  // Built from its entries: a variable named like an object's own machinery stays a variable.
  return {
    name,
    command,
    args: [...args] as string[],
    env: Object.fromEntries(entries) as Record<string, string>,
  };
}

/** The longest name of a variable a definition sets. */
const MAX_ENV_NAME_CHARS = 256;

/** Refuses a variable a definition may not set, or a value it may not have, naming which and why. */
function checkEnvEntry(agent: string, key: string, value: unknown): void {
  if (
    !ENV_NAME_PATTERN.test(key) || key.startsWith("SYNC_") || key.length > MAX_ENV_NAME_CHARS ||
    key === "__proto__"
  ) {
    throw new InvalidInputError(
      `The agent ${agent}'s env: ${JSON.stringify(cutText(key, 80))} is not a variable it may ` +
        `be given (letters, digits and "_", not starting with a digit, at most ` +
        `${MAX_ENV_NAME_CHARS} characters, and no SYNC_ variable)`,
    );
  }
  const max = AGENT_DEFINITION_LIMITS.maxEnvValueChars;
  if (typeof value !== "string" || value.length > max) {
    throw new InvalidInputError(
      `The agent ${agent}'s env: ${key} must be a string of at most ${max} characters`,
    );
  }
  if (value.includes("\0") || !value.isWellFormed()) {
    throw new InvalidInputError(
      `The agent ${agent}'s env: ${key} holds a character no environment variable can carry ` +
        `(a NUL, or half of a UTF-16 pair); give it as plain text`,
    );
  }
}

/**
 * Adds a person's definition, or replaces the one of the same name (a
 * preset's included).
 *
 * @param kv The installation's KV.
 * @param definition The definition, checked with {@linkcode parseAgentDefinition}.
 * @returns It, as listed.
 */
export async function addAgent(kv: Deno.Kv, definition: AgentDefinition): Promise<ListedAgent> {
  const checked = parseAgentDefinition(definition);
  const key = agentDefinitionKey(checked.name);
  const current = await kv.get(key);
  const result = await kv.atomic().check(current).set(key, checked).commit();
  if (!result.ok) {
    throw new ConflictError(
      `The agent ${checked.name} was changed by someone else meanwhile; look at it and try again`,
    );
  }
  return added(checked);
}

/** What {@linkcode removeAgent} removed. */
export interface AgentRemoval {
  /** True when it was a person's definition; a preset it replaced is then back. */
  definition: boolean;
  /** The preset or bundled agent back in its place, or null when none has that name. */
  back: ListedAgent | null;
  /** The variables kept beside a preset (its keys) that were removed, by name; their values never. */
  envNames: string[];
}

/**
 * Removes a person's definition, and a preset they replaced comes back; or,
 * for a preset (or the demo agent) not replaced, the variables kept beside
 * it (a key saved from a sign-in), and it stays the preset.
 *
 * @param kv The installation's KV.
 * @param name The agent's name.
 * @returns What was removed.
 * @throws {ConflictError} when `name` is a preset (or the demo agent) the person did not replace
 *   and no variable is kept beside it: there is nothing to remove.
 * @throws {NotFoundError} when there is no agent by that name.
 */
export async function removeAgent(kv: Deno.Kv, name: string): Promise<AgentRemoval> {
  const key = agentDefinitionKey(name);
  const current = await kv.get<AgentDefinition>(key);
  const preset = builtIn(name);
  if (current.value === null) {
    if (!preset) throw new NotFoundError(`There is no agent named ${name}; sync agents lists them`);
    const envKey = agentEnvKey(name);
    const kept = await kv.get<Record<string, string>>(envKey);
    const envNames = Object.keys(kept.value ?? {}).sort();
    if (envNames.length === 0) {
      throw new ConflictError(
        `${name} is ${
          preset.origin === "bundled" ? "the bundled demo agent" : "a preset"
        } and cannot be removed, and no key is kept beside it: there is nothing to remove. ` +
          `Sync installs nothing for it, and runs it only when work names it. To run it ` +
          `differently, add your own: sync agents add ${name} --command <program>`,
      );
    }
    const result = await kv.atomic().check(current).check(kept).delete(envKey).commit();
    if (!result.ok) {
      throw new ConflictError(
        `The agent ${name} was changed by someone else meanwhile; look at it and try again`,
      );
    }
    return { definition: false, back: null, envNames };
  }
  const result = await kv.atomic().check(current).delete(key).commit();
  if (!result.ok) {
    throw new ConflictError(
      `The agent ${name} was changed by someone else meanwhile; look at it and try again`,
    );
  }
  return { definition: true, back: await readAgent(kv, name), envNames: [] };
}
