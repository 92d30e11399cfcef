import type { Address, ParsedMessage } from "./account_types.ts";

function who(address: Address): string {
  return address.name ? `${address.name} <${address.address}>` : address.address;
}

/**
 * The text a thread's content holds for one message: its headers a person reads (From, To,
 * Cc, Date, Subject, attachments) and its text, ending in a blank line. The folder and flags
 * are in the record's fields, not here, so moving a message or reading it leaves its text as
 * it was.
 */
export function messageBlock(message: ParsedMessage): string {
  const lines = [`From: ${message.from ? who(message.from) : "(unknown)"}`];
  if (message.to.length > 0) lines.push(`To: ${message.to.map(who).join(", ")}`);
  if (message.cc.length > 0) lines.push(`Cc: ${message.cc.map(who).join(", ")}`);
  lines.push(`Date: ${message.date ?? "(none)"}`);
  lines.push(`Subject: ${message.subject}`);
  if (message.attachments.length > 0) {
    const names = message.attachments.map((a) =>
      `${a.filename ?? "(unnamed)"} (${a.mimeType}, ${a.size} bytes)`
    );
    lines.push(`Attachments: ${names.join(", ")}`);
  }
  const text = message.text.replace(/\s+$/, "");
  const cut = message.textCut ? "\n[the text goes on; it was cut at 20,000 characters]" : "";
  return `${lines.join("\n")}\n\n${text}${cut}\n\n`;
}
