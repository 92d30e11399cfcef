// src/service.ts
import { account, memory } from "@sync/extension-api/service";

// src/calendar_file.ts
function calendarFile(path) {
  const parts = path.split("/");
  if (parts.some((part) => part.startsWith("."))) return false;
  return /\.ics$/i.test(parts[parts.length - 1]);
}

// src/owner_addresses.ts
var OWNER_KEY = "calendar.owner/self";
function ownerAddresses(fields) {
  const value = fields?.addresses;
  if (!Array.isArray(value)) return [];
  const out = /* @__PURE__ */ new Set();
  for (const item of value) {
    if (typeof item === "string" && /^[^\s@]+@[^\s@]+$/.test(item.trim())) {
      out.add(item.trim().toLowerCase());
    }
  }
  return [
    ...out
  ].sort();
}

// src/calendar_window.ts
var WINDOW_DAYS = 60;
function calendarWindow(now) {
  return {
    from: new Date(now - 864e5).toISOString(),
    days: WINDOW_DAYS
  };
}

// src/event_exclusion.ts
function eventExclusion(event, owner, now) {
  if (event.status === "cancelled") return "cancelled";
  const mine = new Set(owner.map((address) => address.toLowerCase()));
  const declined = event.attendees.some((attendee) => mine.has(attendee.address.toLowerCase()) && attendee.partstat.toUpperCase() === "DECLINED");
  if (declined) return "declined";
  const end = Date.parse(event.end);
  if (Number.isFinite(end) && end <= now) return "ended";
  return null;
}

// src/event_key.ts
function eventKey(uid, recurrenceId) {
  const text = `${uid}
${recurrenceId ?? ""}`;
  return fnv1a(text, 2166136261) + fnv1a(text, 16777619 ^ 1540483477);
}
function fnv1a(text, seed) {
  let hash = seed >>> 0;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 16777619) >>> 0;
  }
  return hash.toString(16).padStart(8, "0");
}

// src/event_record.ts
var EVENT_KIND = "calendar.event";
function who(person) {
  return person.name ? `${person.name} <${person.address}>` : person.address;
}
function eventRecord(event, file, owner) {
  const mine = new Set(owner);
  const answer = event.attendees.find((a) => mine.has(a.address.toLowerCase()))?.partstat ?? null;
  const lines = [
    event.summary || "(no title)",
    `When: ${event.start} \u2013 ${event.end}${event.allDay ? " (all day)" : ""}${event.timeZone ? ` (${event.timeZone})` : ""}`
  ];
  if (event.location) lines.push(`Where: ${event.location}`);
  if (event.status !== "confirmed") lines.push(`Status: ${event.status}`);
  if (event.organizer) lines.push(`Organizer: ${who(event.organizer)}`);
  if (event.attendees.length > 0) {
    lines.push(`Attendees: ${event.attendees.map((a) => `${who(a)} (${a.partstat.toLowerCase()})`).join(", ")}`);
  }
  const content = `${lines.join("\n")}${event.description ? `

${event.description}` : ""}
`;
  const summary = (event.summary || "(no title)").replace(/\s+/g, " ");
  return {
    key: `${EVENT_KIND}/${eventKey(event.uid, event.recurrenceId)}`,
    title: summary.length <= 300 ? summary : `${summary.slice(0, 299)}\u2026`,
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
      digest: digest(content)
    },
    content
  };
}
function digest(text) {
  let a = 2166136261;
  let b = 1540483477;
  for (let i = 0; i < text.length; i++) {
    a = Math.imul(a ^ text.charCodeAt(i), 16777619) >>> 0;
    b = Math.imul(b ^ text.charCodeAt(i), 16777619) >>> 0;
  }
  return a.toString(16).padStart(8, "0") + b.toString(16).padStart(8, "0");
}

// src/calendar_sync_step.ts
var STATUS_KEY = "calendar.status/sync";
var REASONS_SHOWN = 20;
var MAX_STEPS = 2e3;
async function calendarSyncStep(account2, memory2, state, options) {
  const budget = options.changesPerStep ?? 90;
  const parsePerStep = options.parsePerStep ?? 64;
  const parseBatch = options.parseBatch ?? 16;
  const step = stepOf(state);
  const now = options.now;
  const window = calendarWindow(now);
  const files = await listCalendars(account2);
  const owner = ownerAddresses((await memory2.record(OWNER_KEY))?.fields);
  const pass = `${window.from.slice(0, 10)}|${owner.join(",")}`;
  const status = await memory2.record(STATUS_KEY);
  const old = statusOf(await memory2.content(STATUS_KEY));
  const existing = await readEvents(memory2);
  const indexed = new Map(old.files.map((f) => [
    f.path,
    f
  ]));
  const failedBefore = new Map(old.failures.map((f) => [
    f.path,
    f
  ]));
  const current = new Map(files.map((f) => [
    f.path,
    f
  ]));
  const done = /* @__PURE__ */ new Map();
  const knownFailed = /* @__PURE__ */ new Map();
  const toParse = [];
  for (const file of files) {
    const entry = indexed.get(file.path);
    if (entry && entry.size === file.size && entry.mtime === file.mtime && entry.pass === pass) {
      done.set(file.path, entry);
      continue;
    }
    const failed = failedBefore.get(file.path);
    const retry = options.retryFailed && step === 0;
    if (failed && !retry && failed.size === file.size && failed.mtime === file.mtime) {
      knownFailed.set(file.path, failed);
      continue;
    }
    toParse.push(file);
  }
  const changes = [];
  for (const record of existing.values()) {
    const file = typeof record.fields.file === "string" ? record.fields.file : null;
    const end = typeof record.fields.end === "string" ? Date.parse(record.fields.end) : NaN;
    if (file === null || !current.has(file) || end <= now) {
      changes.push({
        file: null,
        remove: record.key
      });
    }
  }
  const parsing = toParse.slice(0, parsePerStep);
  const batches = [];
  for (let i = 0; i < parsing.length; i += parseBatch) {
    batches.push(parsing.slice(i, i + parseBatch).map((f) => f.path));
  }
  const results = (await Promise.all(batches.map((paths) => account2.parseCalendar(paths, window)))).flat();
  const newFailures = /* @__PURE__ */ new Map();
  const parsedOk = /* @__PURE__ */ new Map();
  const removing = new Set(changes.map((c) => "remove" in c ? c.remove : ""));
  const claimed = /* @__PURE__ */ new Set();
  for (const result of results) {
    const file = current.get(result.path);
    if (!file) continue;
    if (!result.ok) {
      newFailures.set(file.path, {
        ...file,
        reason: result.reason
      });
      continue;
    }
    parsedOk.set(file.path, {
      ...file,
      pass
    });
    const desired = /* @__PURE__ */ new Map();
    for (const event of result.value) {
      if (eventExclusion(event, owner, now) !== null) continue;
      const record = eventRecord(event, file.path, owner);
      if (claimed.has(record.key) && !desired.has(record.key)) continue;
      claimed.add(record.key);
      desired.set(record.key, record);
    }
    for (const record of desired.values()) {
      const before = existing.get(record.key);
      if (!before || before.title !== record.title || JSON.stringify(before.fields) !== JSON.stringify(record.fields)) changes.push({
        file: file.path,
        write: record
      });
    }
    for (const record of existing.values()) {
      if (record.fields.file === file.path && !desired.has(record.key) && !removing.has(record.key)) {
        changes.push({
          file: file.path,
          remove: record.key
        });
      }
    }
  }
  const failures = [
    ...knownFailed.values(),
    ...newFailures.values()
  ].sort((a, b) => a.path < b.path ? -1 : 1);
  const room = budget - 1;
  const applied = changes.slice(0, room);
  const left = changes.slice(room);
  const unfinished = new Set(left.map((c) => c.file));
  for (const change of applied) {
    if ("write" in change) {
      const { key, title: title2, fields, content: content2 } = change.write;
      await memory2.write({
        key,
        title: title2,
        fields,
        content: content2
      });
    } else await memory2.remove(change.remove);
  }
  for (const [path, entry] of parsedOk) if (!unfinished.has(path)) done.set(path, entry);
  const next = {
    files: [
      ...done.values()
    ].sort((a, b) => a.path < b.path ? -1 : 1),
    failures
  };
  const content = JSON.stringify(next);
  const title = failures.length === 0 ? `Read ${done.size} of ${files.length} calendar files` : `Read ${done.size} of ${files.length} calendar files; ${failures.length} could not be read`;
  if (content !== JSON.stringify(old) || status?.title !== title) {
    await memory2.write({
      key: STATUS_KEY,
      title,
      fields: {
        window: window.from.slice(0, 10),
        owner,
        read: done.size,
        failed: failures.length
      },
      content
    });
  }
  const coverage = {
    read: done.size,
    of: files.length,
    failed: failures.length,
    reasons: failures.slice(0, REASONS_SHOWN).map((f) => ({
      item: f.path,
      reason: f.reason
    })),
    items: {
      one: "calendar file",
      other: "calendar files"
    }
  };
  const pending = left.length + (toParse.length - parsing.length) + [
    ...parsedOk.keys()
  ].filter((p) => unfinished.has(p)).length;
  if (pending === 0) return {
    coverage
  };
  if (applied.length === 0 && newFailures.size === 0 && parsedOk.size === 0) {
    throw new Error(`The calendar sync could not go on: ${pending} changes are left and this step could carry out none of them. Run it again.`);
  }
  if (step + 1 >= MAX_STEPS) {
    throw new Error(`The calendar sync stopped after ${MAX_STEPS} steps with ${pending} changes left: the calendar kept changing while it was read. The next run goes on from here.`);
  }
  return {
    continue: {
      step: step + 1
    },
    coverage
  };
}
function stepOf(state) {
  if (state !== null && typeof state === "object" && !Array.isArray(state)) {
    const step = state.step;
    if (typeof step === "number" && Number.isInteger(step) && step >= 0) return step;
  }
  return 0;
}
async function listCalendars(account2) {
  const out = [];
  let cursor = null;
  do {
    const page = await account2.list(cursor === null ? {
      recursive: true
    } : {
      recursive: true,
      cursor
    });
    for (const entry of page.entries) {
      if (entry.kind === "file" && calendarFile(entry.path)) {
        out.push({
          path: entry.path,
          size: entry.size,
          mtime: entry.mtime
        });
      }
    }
    cursor = page.cursor;
  } while (cursor !== null);
  return out.sort((a, b) => a.path < b.path ? -1 : a.path > b.path ? 1 : 0);
}
async function readEvents(memory2) {
  const out = /* @__PURE__ */ new Map();
  let cursor;
  do {
    const page = await memory2.list({
      kind: EVENT_KIND,
      limit: 500,
      ...cursor ? {
        cursor
      } : {}
    });
    for (const record of page.records) out.set(record.key, record);
    cursor = page.cursor;
  } while (cursor);
  return out;
}
function statusOf(content) {
  try {
    const value = JSON.parse(content ?? "");
    const files = Array.isArray(value?.files) ? value.files : [];
    const failures = Array.isArray(value?.failures) ? value.failures : [];
    return {
      files: files.filter((f) => typeof f?.path === "string" && typeof f.size === "number" && typeof f.pass === "string"),
      failures: failures.filter((f) => typeof f?.path === "string" && typeof f.size === "number" && typeof f.reason === "string")
    };
  } catch {
    return {
      files: [],
      failures: []
    };
  }
}

// src/service.ts
function register() {
  return {
    "calendar.sync": (payload, occasion) => calendarSyncStep(account, memory, payload?.continue ?? null, {
      now: Date.now(),
      // A person asking for a read gets the files that failed before tried again.
      retryFailed: occasion.task?.trigger === "person"
    }),
    "calendar.owner": async (payload) => {
      const addresses = ownerAddresses({
        addresses: payload?.addresses ?? null
      });
      if (addresses.length === 0) {
        throw new Error(`calendar.owner needs the calendar owner's addresses: give { "addresses": ["you@example.org"] }`);
      }
      await memory.write({
        key: OWNER_KEY,
        title: `The calendar is ${addresses.join(", ")}'s`,
        fields: {
          addresses
        }
      });
      return {
        addresses
      };
    }
  };
}
export {
  register as default
};
