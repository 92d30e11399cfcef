/**
 * Test helpers for agent sessions: a performer over a test host, waiting
 * for a session to reach a state, and orders written into a project's
 * outbox as a handler call would commit them.
 *
 * @module
 */
import type { AgentSession } from "../../runtime/agent_session.ts";
import {
  type AgentLauncher,
  readSession,
  spawnAgent,
  WorkPerformer,
  type WorkPerformerOptions,
} from "../../runtime/agents/mod.ts";
import { MemoryTransaction } from "../../runtime/memory/mod.ts";
import { stageWorkOrder, type WorkOrder } from "../../runtime/work/mod.ts";
import type { Host } from "../../runtime/host/mod.ts";

/** A launcher that counts the agents it starts. */
export function countingLauncher(): { launch: AgentLauncher; started: string[] } {
  const started: string[] = [];
  return {
    started,
    launch: (command, { cwd, owner }) => {
      started.push(owner);
      return Promise.resolve(spawnAgent(command, { cwd }));
    },
  };
}

/** A performer over a host's installation, bus and project memories. */
export function performerOver(
  host: Host,
  options: Partial<WorkPerformerOptions> = {},
): WorkPerformer {
  return new WorkPerformer({
    kv: host.kv,
    events: host.events,
    projectMemory: (project) => host.projectMemory(project),
    log: () => {},
    ...options,
  });
}

/**
 * Waits until the session's pointer satisfies `ready`, reading it again
 * every 50 ms; fails after `timeoutMs` saying where it stands.
 */
export async function waitForSession(
  kv: Deno.Kv,
  project: string,
  key: string,
  ready: (session: AgentSession) => boolean,
  timeoutMs = 30_000,
): Promise<AgentSession> {
  const until = Date.now() + timeoutMs;
  let last: AgentSession | null = null;
  while (Date.now() < until) {
    last = await readSession(kv, project, key);
    if (last && ready(last)) return last;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`The session ${key} did not get there; it stands: ${JSON.stringify(last)}`);
}

/** Writes an order into the project's outbox, committed as a handler call commits it. */
export async function commitOrder(
  memory: Deno.Kv,
  project: string,
  order: Partial<WorkOrder> & { key: string; prompt: WorkOrder["prompt"] },
): Promise<WorkOrder> {
  const whole: WorkOrder = {
    kind: "agent.session",
    agent: "demo",
    title: `Order ${order.key}`,
    onInterrupted: "wait",
    project,
    extensionId: "tester",
    source: {
      kind: "handler",
      extensionId: "tester",
      extensionName: "Tester",
      handler: "tester.order",
    },
    state: "ordered",
    orderedAt: new Date().toISOString(),
    ...order,
  };
  const transaction = new MemoryTransaction(memory, { by: "test" });
  await stageWorkOrder(transaction, whole);
  await transaction.commit();
  return whole;
}
