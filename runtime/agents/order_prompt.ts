/**
 * What an agent is first told when it performs a work order: the order's
 * title and text (and the files attached, which it reads itself), what the
 * ordering extension tells agents (its `prompt/instructions.md`), and one
 * line saying who ordered it and about what.
 *
 * @module
 */
import { cutText } from "../internal/cut_text.ts";
import { begunBy } from "./begun_by.ts";
import { readPackageText, servingPackage } from "../packages/mod.ts";
import { readDeclaredIds } from "../projects/mod.ts";
import type { Source } from "../types.ts";
import type { WorkOrder } from "../work/mod.ts";

/** The most characters of an extension's instructions a prompt carries. */
const MAX_INSTRUCTIONS_CHARS = 20_000;

/**
 * Who asked for a piece of work, in words: "the Triage extension's
 * triage.sweep handler", "a person", …
 *
 * @param source The order's source.
 */
export function describeSource(source: Source): string {
  switch (source.kind) {
    case "handler":
      return `the ${source.extensionName} extension's ${source.handler} handler`;
    case "person":
      return "a person";
    case "clock":
      return "the clock";
    case "agent":
      return source.name ? `the agent ${source.name}` : "an agent";
  }
}

/**
 * The ordering extension's instructions for agents, as the package serving
 * the project now has them; null when it has none or cannot be read.
 */
async function instructionsOf(kv: Deno.Kv, order: WorkOrder): Promise<string | null> {
  if (!order.extensionId) return null;
  try {
    const pkg = await servingPackage(kv, order.project, order.extensionId, {
      declaredIds: await readDeclaredIds(order.project),
    });
    if (!pkg.manifest.prompt) return null;
    // The package's own file only, and only so far (4 bytes a character at most): a
    // linked folder's prompt may have become a link to a secret, a FIFO or /dev/zero.
    const text = await readPackageText(pkg.dir, pkg.manifest.prompt, MAX_INSTRUCTIONS_CHARS * 4);
    return text.trim() === "" ? null : cutText(text.trim(), MAX_INSTRUCTIONS_CHARS);
  } catch {
    // An extension removed since it ordered, or a file gone, refused or too long: the
    // order still says what to do.
    return null;
  }
}

/**
 * The first prompt of the session that performs an order.
 *
 * @param kv The installation's KV, to find the package serving the ordering extension.
 * @param order The order.
 * @returns The text the agent is sent.
 */
export async function orderPrompt(kv: Deno.Kv, order: WorkOrder): Promise<string> {
  const parts = [order.title, order.prompt.text];
  const attachments = order.prompt.attachments ?? [];
  if (attachments.length > 0) {
    parts.push(
      `Files attached (read them yourself):\n${attachments.map((p) => `- ${p}`).join("\n")}`,
    );
  }
  const instructions = await instructionsOf(kv, order);
  if (instructions !== null) {
    const name = order.source.kind === "handler" ? order.source.extensionName : order.extensionId;
    parts.push(`What the ${name} extension tells agents:\n\n${instructions}`);
  }
  parts.push(
    `This work was ordered by ${describeSource(order.source)} in ${order.project}` +
      (order.about ? `, about ${order.about}.` : ".") +
      // Why the handler was called tells the agent whether a person is
      // waiting for it (called from the window) or nobody is (the clock).
      (order.source.kind === "handler" && order.source.occasion
        ? ` ${begunBy({ source: order.source, createdAt: order.orderedAt })}.`
        : ""),
  );
  return parts.join("\n\n");
}
