import type { Json, ParsedEvent } from "./account_types.ts";
import { eventKey } from "./event_key.ts";

/** The kind of the Calendar applet's event records. */
export const EVENT_KIND = "calendar.event";

/** A record the Calendar sync writes for one occurrence. */
export interface EventRecord {
  key: string;
  title: string;
  fields: { [name: string]: Json };
  content: string;
}

function who(person: { name: string; address: string }): string {
  return person.name ? `${person.name} <${person.address}>` : person.address;
}

/**
 * The record of one occurrence kept from `file`: the summary as its title; its times, place,
 * status, organizer and the owner's answer as fields, with a digest of its content so a
 * change of description or attendees changes the fields too; and a text a person reads.
 */
export function eventRecord(event: ParsedEvent, file: string, owner: string[]): EventRecord {
  const mine = new Set(owner);
  const answer = event.attendees.find((a) => mine.has(a.address.toLowerCase()))?.partstat ?? null;
  const lines = [
    event.summary || "(no title)",
    `When: ${event.start} – ${event.end}${event.allDay ? " (all day)" : ""}${
      event.timeZone ? ` (${event.timeZone})` : ""
    }`,
  ];
  if (event.location) lines.push(`Where: ${event.location}`);
  if (event.status !== "confirmed") lines.push(`Status: ${event.status}`);
  if (event.organizer) lines.push(`Organizer: ${who(event.organizer)}`);
  if (event.attendees.length > 0) {
    lines.push(
      `Attendees: ${
        event.attendees.map((a) => `${who(a)} (${a.partstat.toLowerCase()})`).join(", ")
      }`,
    );
  }
  const content = `${lines.join("\n")}${event.description ? `\n\n${event.description}` : ""}\n`;
  const summary = (event.summary || "(no title)").replace(/\s+/g, " ");
  return {
    key: `${EVENT_KIND}/${eventKey(event.uid, event.recurrenceId)}`,
    title: summary.length <= 300 ? summary : `${summary.slice(0, 299)}…`,
    fields: {
      uid: event.uid,
      recurrenceId: event.recurrenceId,
      file,
      start: event.start,
      end: event.end,
      allDay: event.allDay,
      timeZone: event.timeZone,
      status: event.status,
      location: event.location,
      organizer: event.organizer?.address ?? null,
      ownerAnswer: answer,
      digest: digest(content),
    },
    content,
  };
}

function digest(text: string): string {
  let a = 0x811c9dc5;
  let b = 0x5bd1e995;
  for (let i = 0; i < text.length; i++) {
    a = Math.imul(a ^ text.charCodeAt(i), 0x01000193) >>> 0;
    b = Math.imul(b ^ text.charCodeAt(i), 0x01000193) >>> 0;
  }
  return a.toString(16).padStart(8, "0") + b.toString(16).padStart(8, "0");
}
