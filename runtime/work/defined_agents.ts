/**
 * Which agents an order may name: those the installation defines (a person's
 * own, the presets and the demo agent). The work domain does not read agent
 * definitions itself; whoever wires an order's checks passes the lookup in.
 *
 * @module
 */
import { InvalidInputError } from "../errors.ts";

/** The names of the agents the installation defines now. */
export type DefinedAgents = () => Promise<readonly string[]>;

/**
 * Refuses an order for an agent the installation does not define, naming
 * those it does, so the order fails when it is placed rather than when it
 * is performed.
 *
 * @param agent The agent the order names.
 * @param defined The installation's agents; without it nothing is refused.
 * @param what Who refuses, for the message: `work.order()` or `work_order`.
 * @throws {InvalidInputError} when no agent has that name.
 */
export async function checkDefinedAgent(
  agent: string,
  defined: DefinedAgents | undefined,
  what: string,
): Promise<void> {
  if (defined === undefined) return;
  const names = await defined();
  if (names.includes(agent)) return;
  throw new InvalidInputError(
    `${what} refused the order: no agent is named ${JSON.stringify(agent)}; the agents ` +
      `defined are ${names.join(", ")}. Name one of them, or ask a person to add the agent ` +
      `in the Agents section of Sync's start page`,
  );
}
