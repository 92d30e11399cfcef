/**
 * What a person does to sign in to an agent, from the methods the agent
 * lists (`authMethods`): for a terminal method, the command to run (the
 * agent's own program with the method's arguments and environment); for a
 * method that reads environment variables, the variables to add to the
 * agent's definition (Sync then calls `authenticate` itself); for the
 * agent's own way, its words. Both as structured ways, which Chat shows with
 * a form or a command to copy, and as one sentence.
 *
 * @module
 */
import type { SignInWay } from "../agent_session.ts";
import type { AgentAuthMethod } from "./agent_errors.ts";
import { AGENT_LIMITS } from "./agent_limits.ts";
import { cutText } from "../internal/cut_text.ts";

/** Options for {@linkcode signInWays}. */
export interface SignInWaysOptions {
  /** The agent's name in Sync. */
  agentName: string;
  /** The command the agent runs as (program and arguments); the agent's name when not given. */
  agentCommand?: readonly string[];
}

/**
 * The ways to sign in, one per method the agent lists (at most
 * `AGENT_LIMITS.maxSignInWays`), each of the agent's words cut.
 *
 * @param methods The methods, as `initialize` listed them.
 * @param options The agent's name and command.
 */
export function signInWays(
  methods: readonly AgentAuthMethod[],
  options: SignInWaysOptions,
): SignInWay[] {
  const command = options.agentCommand ?? [options.agentName];
  return methods.slice(0, AGENT_LIMITS.maxSignInWays).map((method) => {
    const way: SignInWay = { id: cut(method.id), name: cut(method.name) };
    if (method.description) way.description = cut(method.description);
    if (method.link) way.link = cut(method.link);
    if (method.terminal) {
      const shown = terminalCommand(method.terminal, command);
      if (shown.ok) way.command = shown.command;
      else way.description = cut(`${method.description ?? method.name}. ${shown.why}`);
    }
    const unsafe = (method.envVars ?? []).find((v) => !keyVariable(v.name));
    if (unsafe) {
      // No form: what the agent asks for is not a key.
      way.description = cut(
        `${method.description ?? method.name}. Sync offers no form for ${unsafe.name}: ` +
          (unsafe.name.startsWith("SYNC_")
            ? `Sync never gives an agent its own SYNC_ variables`
            : `it changes how programs run, not a key; set it with sync agents add only if ` +
              `you mean to`),
      );
    } else if (method.envVars && method.envVars.length > 0) {
      way.envVars = method.envVars.slice(0, AGENT_LIMITS.maxSignInWays).map((v) => ({
        name: cut(v.name),
        ...(v.label ? { label: cut(v.label) } : {}),
        ...(v.optional ? { optional: true } : {}),
      }));
    }
    return way;
  });
}

/**
 * The sentence a waiting session shows: why the agent refused, and for
 * each way what to do, in words ("run `…` in a terminal", "add
 * OPENAI_API_KEY to the agent codex's definition").
 *
 * @param agentName The agent's name in Sync.
 * @param what What the agent refused, such as `session/new`.
 * @param why The agent's words.
 * @param ways The ways, from {@linkcode signInWays}.
 */
export function signInText(
  agentName: string,
  what: string,
  why: string,
  ways: readonly SignInWay[],
): string {
  const each = ways.map((way) => {
    const needed = (way.envVars ?? []).filter((v) => !v.optional).map((v) => v.name);
    const how = way.command
      ? `run \`${way.command}\` in a terminal`
      : needed.length > 0
      ? `add ${needed.join(" and ")} to the agent ${agentName}'s definition`
      : (way.description ?? "");
    return `${way.name}${how ? ` (${how})` : ""}`;
  });
  return cutText(
    `The agent ${agentName} needs a person to sign in before ${what} (${cut(why)}): ` +
      (each.length > 0
        ? `sign in one of these ways: ${each.join("; ")}; then continue`
        : `sign in the way the agent's own documentation says; then continue`),
    AGENT_LIMITS.maxReasonChars,
  );
}

/**
 * Variables that change how a program starts or what it runs — a loader's,
 * a runtime's, the search path — which a sign-in never needs, and which an
 * agent asking for them through a form would use to run code of its choice.
 */
const PROGRAM_VARIABLES =
  /^(SYNC_|LD_|DYLD_|NODE_OPTIONS$|NODE_PATH$|PATH$|BASH_ENV$|ENV$|PYTHONPATH$|PYTHONSTARTUP$|PERL5OPT$|RUBYOPT$)/;

/** True for a variable a sign-in form may ask for: a key, not Sync's own nor a program's. */
function keyVariable(name: string): boolean {
  return ENV_NAME.test(name) && !PROGRAM_VARIABLES.test(name);
}

/** A variable's name a shell takes before a command (`NAME=value command`). */
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * The command a person runs for a terminal method, every word quoted so
 * that pasting it runs that one command: the agent's program, the method's
 * arguments, and its variables before them. Never cut: a command cut short
 * would still run, as another command. One whose variables have names a
 * shell would not read as names, or that is too long to show, is not shown.
 */
function terminalCommand(
  terminal: NonNullable<AgentAuthMethod["terminal"]>,
  command: readonly string[],
): { ok: true; command: string } | { ok: false; why: string } {
  const names = Object.keys(terminal.env);
  const program = names.find((name) => ENV_NAME.test(name) && !keyVariable(name));
  if (program !== undefined) {
    return {
      ok: false,
      why: `Sync does not show its command: it sets ${program}, which is Sync's own or ` +
        `changes how programs run, not part of a sign-in; see the agent's own documentation`,
    };
  }
  if (names.some((name) => !ENV_NAME.test(name))) {
    return {
      ok: false,
      why: "Sync does not show its command: the agent gave it variables whose names are not " +
        "names a shell reads; see the agent's own documentation",
    };
  }
  const whole = [
    ...Object.entries(terminal.env).map(([k, v]) => `${k}=${shellWord(v)}`),
    ...command.map(shellWord),
    ...terminal.args.map(shellWord),
  ].join(" ");
  if (whole.length > AGENT_LIMITS.maxAgentWordsChars) {
    return {
      ok: false,
      why: `Sync does not show its command: it is ${whole.length} characters long, more than ` +
        `the ${AGENT_LIMITS.maxAgentWordsChars} it shows; see the agent's own documentation`,
    };
  }
  return { ok: true, command: whole };
}

/** One of the agent's words, cut to what a way keeps. */
function cut(text: string): string {
  return cutText(text, AGENT_LIMITS.maxSignInWordsChars);
}

/** A word as a POSIX shell reads it back: quoted when it holds anything but plain characters. */
function shellWord(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}
