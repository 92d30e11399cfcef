// src/service.ts
import { account, memory } from "@sync/extension-api/service";

// src/index_entry.ts
function indexEntry(value) {
  if (typeof value !== "object" || value === null) return null;
  const v = value;
  const text = (x) => typeof x === "string" ? x : null;
  if (typeof v.file !== "string" || typeof v.size !== "number" || typeof v.chars !== "number" || v.mtime !== null && typeof v.mtime !== "number") return null;
  return {
    file: v.file,
    size: v.size,
    mtime: v.mtime,
    messageId: text(v.messageId),
    parent: text(v.parent),
    root: text(v.root),
    date: text(v.date),
    from: text(v.from),
    subject: text(v.subject) ?? "",
    folder: text(v.folder) ?? "INBOX",
    flags: text(v.flags) ?? "",
    chars: v.chars
  };
}

// src/maildir_file.ts
var RESERVED = /(^|\/)(cur|new|tmp)(\/|$)/;
var LETTERS = /^[A-Za-z]*$/;
var folders = /* @__PURE__ */ new Map();
function maildirFile(path, size, mtime) {
  const slash = path.lastIndexOf("/");
  if (slash <= 0) return null;
  const name = path.slice(slash + 1);
  if (name === "" || name.startsWith(".")) return null;
  const boxEnd = path.lastIndexOf("/", slash - 1);
  const dir = path.slice(boxEnd + 1, slash);
  if (dir !== "cur" && dir !== "new") return null;
  const boxPath = boxEnd < 0 ? "" : path.slice(0, boxEnd);
  if (boxPath !== "" && RESERVED.test(boxPath)) return null;
  let unique = name;
  let flags = "";
  const info = name.lastIndexOf("2,");
  if (info > 0 && ":!;".includes(name[info - 1]) && LETTERS.test(name.slice(info + 2))) {
    unique = name.slice(0, info - 1);
    flags = sortedFlags(name.slice(info + 2));
  }
  let folder = folders.get(boxPath);
  if (folder === void 0) {
    folder = folderName(boxPath === "" ? [] : boxPath.split("/"));
    folders.set(boxPath, folder);
  }
  return {
    id: `${boxPath}/${unique}`,
    path,
    folder,
    flags,
    size,
    mtime
  };
}
function sortedFlags(flags) {
  for (let i = 1; i < flags.length; i++) {
    if (flags[i - 1] >= flags[i]) return [
      ...new Set(flags)
    ].sort().join("");
  }
  return flags;
}
function folderName(box) {
  if (box.length === 0) return "INBOX";
  if (box.length === 1 && box[0].startsWith(".")) return box[0].slice(1);
  return box.map((part) => part.replace(/^\./, "")).join("/");
}

// src/list_maildir.ts
async function listMaildir(account2) {
  const files = [];
  let maildir = false;
  let cursor = null;
  do {
    const page = await account2.list(cursor === null ? {
      recursive: true
    } : {
      recursive: true,
      cursor
    });
    for (const entry of page.entries) {
      if (entry.kind === "folder" && /(^|\/)(cur|new)$/.test(entry.path)) maildir = true;
      if (entry.kind !== "file") continue;
      const file = maildirFile(entry.path, entry.size, entry.mtime);
      if (file) files.push(file);
    }
    cursor = page.cursor;
  } while (cursor !== null);
  if (!maildir) {
    const error = new Error("The connected folder is not a Maildir: it holds no cur/ or new/ folder, so nothing was read and the threads read before are kept. Connect the folder that holds cur/, new/ and tmp/ (the one mbsync, offlineimap or notmuch keep).");
    error.name = "AccountAccessError";
    throw error;
  }
  return files;
}

// src/message_block.ts
function who(address) {
  return address.name ? `${address.name} <${address.address}>` : address.address;
}
function messageBlock(message) {
  const lines = [
    `From: ${message.from ? who(message.from) : "(unknown)"}`
  ];
  if (message.to.length > 0) lines.push(`To: ${message.to.map(who).join(", ")}`);
  if (message.cc.length > 0) lines.push(`Cc: ${message.cc.map(who).join(", ")}`);
  lines.push(`Date: ${message.date ?? "(none)"}`);
  lines.push(`Subject: ${message.subject}`);
  if (message.attachments.length > 0) {
    const names = message.attachments.map((a) => `${a.filename ?? "(unnamed)"} (${a.mimeType}, ${a.size} bytes)`);
    lines.push(`Attachments: ${names.join(", ")}`);
  }
  const text = message.text.replace(/\s+$/, "");
  const cut2 = message.textCut ? "\n[the text goes on; it was cut at 20,000 characters]" : "";
  return `${lines.join("\n")}

${text}${cut2}

`;
}

// src/junk_folder.ts
var JUNK = /* @__PURE__ */ new Set([
  "spam",
  "junk",
  "junk e-mail",
  "junk email",
  "bulk mail",
  "trash",
  "bin",
  "deleted",
  "deleted messages",
  "deleted items"
]);
function junkFolder(folder) {
  const last = folder.split(/[./]/).pop() ?? folder;
  return JUNK.has(last.trim().toLowerCase());
}

// src/thread_key.ts
function threadKey(rootId) {
  return fnv1a(rootId, 2166136261) + fnv1a(rootId, 16777619 ^ 1540483477);
}
function fnv1a(text, seed) {
  let hash = seed >>> 0;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 16777619) >>> 0;
  }
  return hash.toString(16).padStart(8, "0");
}

// src/thread_messages.ts
function threadMessages(messages) {
  const parent = /* @__PURE__ */ new Map();
  const find = (id) => {
    let at = id;
    for (let next = parent.get(at); next !== void 0 && next !== at; next = parent.get(at)) {
      const up = parent.get(next);
      if (up !== void 0) parent.set(at, up);
      at = next;
    }
    return at;
  };
  const join = (a, b) => {
    const ra = find(a);
    const rb = find(b);
    if (ra !== rb) parent.set(ra < rb ? rb : ra, ra < rb ? ra : rb);
  };
  for (const message of messages) {
    if (!parent.has(message.node)) parent.set(message.node, message.node);
    for (const link of [
      message.parent,
      message.root
    ]) {
      if (link === null || link === message.node) continue;
      if (!parent.has(link)) parent.set(link, link);
      join(message.node, link);
    }
  }
  const groups = /* @__PURE__ */ new Map();
  messages.forEach((message, i) => {
    const root = find(message.node);
    const group = groups.get(root);
    if (group) group.push(i);
    else groups.set(root, [
      i
    ]);
  });
  return [
    ...groups.values()
  ].sort((a, b) => a[0] - b[0]);
}

// src/plan_threads.ts
var THREAD_KIND = "mail.thread";
var CONTENT_CHARS = 17e4;
var CHUNK_BYTES = 60 * 1024;
var NEW_RECORD_OVERHEAD = 400;
var OLD_RECORD_OVERHEAD = 1200;
var KEY_OVERHEAD = 48;
var FIELD_BYTES = 28e3;
var TITLE_CHARS = 300;
function planThreads(messages, existing, vanished, options) {
  const oldSize = /* @__PURE__ */ new Map();
  const oldKeys = /* @__PURE__ */ new Map();
  for (const record of existing.values()) {
    const thread = record.fields.thread;
    if (typeof thread !== "string") continue;
    const count = Array.isArray(record.fields.messages) ? record.fields.messages.length : 0;
    oldSize.set(thread, (oldSize.get(thread) ?? 0) + count);
    oldKeys.set(thread, [
      ...oldKeys.get(thread) ?? [],
      record.key
    ]);
  }
  const kept = /* @__PURE__ */ new Set();
  const desired = desiredRecords(messages, options, (name, group) => {
    const same = group.length === oldSize.get(name) && group.every((m) => m.change === null && m.oldThread === name);
    if (same) {
      for (const key of oldKeys.get(name)) kept.add(key);
    }
    return same;
  });
  const touched = /* @__PURE__ */ new Map();
  for (const record of desired.values()) {
    const old = existing.get(record.key);
    const fields = JSON.stringify(record.fields);
    if (!old || old.title !== record.title || JSON.stringify(old.fields) !== fields) {
      touched.set(record.key, writeCost(record, fields, old));
    }
  }
  const removes = [
    ...existing.keys()
  ].filter((key) => !desired.has(key) && !kept.has(key));
  for (const key of removes) touched.set(key, removeCost(key, existing.get(key)));
  const links = new UnionFind();
  const threadOf = /* @__PURE__ */ new Map();
  for (const record of desired.values()) {
    const thread = String(record.fields.thread);
    const first = threadOf.get(thread);
    if (first) links.join(`r:${first}`, `r:${record.key}`);
    else threadOf.set(thread, record.key);
    links.add(`r:${record.key}`);
    for (const message of record.messages) {
      if (message.oldKey !== null) links.join(`r:${record.key}`, `r:${message.oldKey}`);
      if (message.change !== null) links.join(`r:${record.key}`, `c:${message.change}`);
    }
  }
  for (const [change, key] of vanished) links.join(`c:${change}`, `r:${key}`);
  for (const key of removes) links.add(`r:${key}`);
  const clusters = /* @__PURE__ */ new Map();
  const clusterOf = (node) => {
    const root = links.find(node);
    let cluster = clusters.get(root);
    if (!cluster) clusters.set(root, cluster = {
      cost: noCost(),
      first: Infinity,
      changes: []
    });
    return cluster;
  };
  for (const [key, cost] of touched) addTo(clusterOf(`r:${key}`).cost, cost);
  for (const node of links.nodes()) {
    if (!node.startsWith("c:")) continue;
    const change = Number(node.slice(2));
    const cluster = clusterOf(node);
    cluster.changes.push(change);
    cluster.first = Math.min(cluster.first, change);
  }
  const chosen = /* @__PURE__ */ new Set();
  const applied = /* @__PURE__ */ new Set();
  const spent = noCost();
  const ordered = [
    ...clusters.entries()
  ].filter(([, c]) => c.cost.records > 0 || c.changes.length > 0).sort((a, b) => a[1].first - b[1].first);
  for (const [root, cluster] of ordered) {
    const over = overBudget(spent, cluster.cost, options.budget);
    if (over !== null) {
      if (spent.records === 0 && cluster.cost.records > 0) {
        throw new Error(`One change to the mail touches ${cluster.cost.records} thread records at once, more than a step may write (${over}); nothing was written. This needs a smaller change, such as moving fewer messages of one thread at a time.`);
      }
      continue;
    }
    addTo(spent, cluster.cost);
    chosen.add(root);
    for (const change of cluster.changes) applied.add(change);
  }
  const inChosen = (key) => chosen.has(links.find(`r:${key}`));
  return {
    writes: [
      ...desired.values()
    ].filter((r) => touched.has(r.key) && inChosen(r.key)),
    removes: removes.filter(inChosen),
    applied
  };
}
function noCost() {
  return {
    records: 0,
    entries: 0,
    bytes: 0,
    keyBytes: 0
  };
}
function addTo(total, cost) {
  total.records += cost.records;
  total.entries += cost.entries;
  total.bytes += cost.bytes;
  total.keyBytes += cost.keyBytes;
}
function overBudget(spent, cost, budget) {
  if (spent.records + cost.records > budget.records) return `${budget.records} records`;
  if (spent.entries + cost.entries > budget.entries) return `${budget.entries} stored entries`;
  if (spent.bytes + cost.bytes > budget.bytes) return `${budget.bytes} bytes`;
  if (spent.keyBytes + cost.keyBytes > budget.keyBytes) return `${budget.keyBytes} bytes of keys`;
  return null;
}
function chunksOf(bytes) {
  return Math.ceil(bytes / CHUNK_BYTES);
}
function oldContentBytes(old) {
  const list = Array.isArray(old.fields.messages) ? old.fields.messages : [];
  let chars = 0;
  for (const value of list) {
    const c = value?.chars;
    if (typeof c === "number") chars += c;
  }
  return chars * 3;
}
function writeCost(record, fields, old) {
  let contentBytes = 0;
  for (const m of record.messages) {
    contentBytes += m.block === null ? m.entry.chars * 3 : NON_ASCII.test(m.block) ? utf8Length(m.block) : m.block.length;
  }
  const entries = 1 + chunksOf(contentBytes) + (old ? chunksOf(oldContentBytes(old)) : 0);
  const key = utf8Length(record.key);
  const keyBytes = entries * (key + KEY_OVERHEAD);
  return {
    records: 1,
    entries,
    keyBytes,
    // The key twice more: the check's, and in the metadata.
    bytes: keyBytes + 2 * key + contentBytes + utf8Length(fields) + utf8Length(JSON.stringify(record.title)) + (old ? OLD_RECORD_OVERHEAD : NEW_RECORD_OVERHEAD)
  };
}
function removeCost(key, old) {
  const entries = 1 + chunksOf(oldContentBytes(old));
  const keyBytes = entries * (utf8Length(key) + KEY_OVERHEAD);
  return {
    records: 1,
    entries,
    keyBytes,
    bytes: keyBytes + utf8Length(key) + KEY_OVERHEAD
  };
}
var NON_ASCII = /[\u0080-\uffff]/;
var sortKeys = /* @__PURE__ */ new WeakMap();
function sortKey(message) {
  let key = sortKeys.get(message);
  if (key === void 0) {
    key = `${message.entry.date ?? "~"}\0${message.id}`;
    sortKeys.set(message, key);
  }
  return key;
}
function nodeOf(message) {
  return message.entry.messageId ?? `file:${message.id}`;
}
function desiredRecords(messages, options, unchanged) {
  const links = messages.map((m) => ({
    node: nodeOf(m),
    parent: m.entry.parent,
    root: m.entry.root
  }));
  const groups = threadMessages(links).map((indexes) => indexes.map((i) => messages[i]).sort((a, b) => sortKey(a) < sortKey(b) ? -1 : 1));
  const claims = /* @__PURE__ */ new Map();
  const names = groups.map(() => null);
  groups.forEach((group, g) => {
    const counts = /* @__PURE__ */ new Map();
    for (const m of group) {
      if (m.oldThread !== null) counts.set(m.oldThread, (counts.get(m.oldThread) ?? 0) + 1);
    }
    let best = null;
    for (const [thread, count] of counts) {
      if (best === null || count > counts.get(best) || count === counts.get(best) && thread < best) {
        best = thread;
      }
    }
    if (best === null) return;
    const list = claims.get(best) ?? [];
    list.push({
      group: g,
      count: counts.get(best),
      first: sortKey(group[0])
    });
    claims.set(best, list);
  });
  const used = /* @__PURE__ */ new Set();
  for (const [thread, list] of claims) {
    list.sort((a, b) => b.count - a.count || (a.first < b.first ? -1 : 1));
    names[list[0].group] = thread;
    used.add(thread);
  }
  groups.forEach((group, g) => {
    if (names[g] !== null) return;
    const first = group[0];
    const root = first.entry.root ?? first.entry.parent ?? nodeOf(first);
    let name = threadKey(root);
    for (let salt = 1; used.has(name); salt++) name = threadKey(`${root}
${first.id}
${salt}`);
    used.add(name);
    names[g] = name;
  });
  const out = /* @__PURE__ */ new Map();
  groups.forEach((group, g) => {
    const thread = names[g];
    if (unchanged(thread, group)) return;
    const parts = partsOf(group, options);
    const subject = group.find((m) => m.entry.subject.trim() !== "")?.entry.subject.trim() ?? "(no subject)";
    const excluded = group.every((m) => junkFolder(m.entry.folder));
    parts.forEach((part, p) => {
      const key = `${THREAD_KIND}/${thread}${p === 0 ? "" : `-${p + 1}`}`;
      const title = cut(subject, TITLE_CHARS) + (parts.length > 1 ? ` (part ${p + 1} of ${parts.length})` : "");
      out.set(key, {
        key,
        title,
        fields: {
          thread,
          part: p + 1,
          parts: parts.length,
          excluded,
          messages: part.map((m) => ({
            ...m.entry
          }))
        },
        messages: part
      });
    });
  });
  return out;
}
function partsOf(group, options) {
  const contentChars = options.contentChars ?? CONTENT_CHARS;
  const fieldBytes = options.fieldBytes ?? FIELD_BYTES;
  const parts = [
    []
  ];
  let chars = 0;
  let bytes = 0;
  for (const message of group) {
    const size = utf8Length(JSON.stringify(message.entry)) + 1;
    const part = parts[parts.length - 1];
    if (part.length > 0 && (chars + message.entry.chars > contentChars || bytes + size > fieldBytes)) {
      parts.push([
        message
      ]);
      chars = message.entry.chars;
      bytes = size;
    } else {
      part.push(message);
      chars += message.entry.chars;
      bytes += size;
    }
  }
  return parts;
}
function utf8Length(text) {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    n += c < 128 ? 1 : c < 2048 ? 2 : c >= 55296 && c < 56320 ? (i++, 4) : 3;
  }
  return n;
}
function cut(text, max) {
  const line = text.replace(/\s+/g, " ");
  return line.length <= max ? line : `${line.slice(0, max - 1)}\u2026`;
}
var UnionFind = class {
  #parent = /* @__PURE__ */ new Map();
  add(node) {
    if (!this.#parent.has(node)) this.#parent.set(node, node);
  }
  find(node) {
    this.add(node);
    let at = node;
    while (this.#parent.get(at) !== at) {
      const next = this.#parent.get(at);
      this.#parent.set(at, this.#parent.get(next));
      at = next;
    }
    return at;
  }
  join(a, b) {
    const ra = this.find(a);
    const rb = this.find(b);
    if (ra !== rb) this.#parent.set(ra, rb);
  }
  nodes() {
    return [
      ...this.#parent.keys()
    ];
  }
};

// src/mail_sync_step.ts
var STATUS_KEY = "mail.status/sync";
var MAX_STEPS = 5e3;
var COMMIT = {
  entries: 990,
  bytes: 640 * 1024,
  keyBytes: 68 * 1024
};
var REASONS_SHOWN = 20;
var FAILURES_KEPT = 100;
var NON_ASCII2 = /[\u0080-\uffff]/;
var MIN_ROUND = 8;
async function mailSyncStep(account2, memory2, state, options = {}) {
  const budget = options.changesPerStep ?? 300;
  const parsePerStep = options.parsePerStep ?? 512;
  const parseBatch = options.parseBatch ?? 16;
  const step = stepOf(state);
  const retry = options.retryFailed === true && step === 0;
  const files = await listMaildir(account2);
  const existing = await readThreads(memory2);
  const status = await memory2.record(STATUS_KEY);
  const oldFailures = failuresOf(status?.fields.failures);
  const index = /* @__PURE__ */ new Map();
  const recordOf = /* @__PURE__ */ new Map();
  const recordChars = /* @__PURE__ */ new Map();
  for (const record of existing.values()) {
    const thread = typeof record.fields.thread === "string" ? record.fields.thread : null;
    const list = Array.isArray(record.fields.messages) ? record.fields.messages : [];
    let offset = 0;
    for (const value of list) {
      const entry = indexEntry(value);
      if (!entry) continue;
      const file = maildirFile(entry.file, entry.size, entry.mtime);
      if (file) {
        index.set(file.id, {
          id: file.id,
          entry,
          oldKey: record.key,
          oldThread: thread,
          oldOffset: offset,
          change: null,
          block: null
        });
      }
      offset += entry.chars;
      for (const id of [
        entry.messageId,
        entry.parent,
        entry.root
      ]) {
        if (id !== null) recordOf.set(id, record.key);
      }
    }
    recordChars.set(record.key, offset);
  }
  const failedBefore = /* @__PURE__ */ new Map();
  for (const failure of oldFailures) {
    const file = maildirFile(failure.file, failure.size, failure.mtime);
    if (file) failedBefore.set(file.id, failure);
  }
  const messages = /* @__PURE__ */ new Map();
  const vanished = /* @__PURE__ */ new Map();
  let changes = 0;
  const toParse = [];
  const knownFailed = /* @__PURE__ */ new Map();
  const current = /* @__PURE__ */ new Set();
  for (const file of files) {
    current.add(file.id);
    const known = index.get(file.id);
    if (known && known.entry.size === file.size && known.entry.mtime === file.mtime) {
      if (known.entry.file === file.path) messages.set(file.id, known);
      else {
        messages.set(file.id, {
          ...known,
          entry: {
            ...known.entry,
            file: file.path,
            folder: file.folder,
            flags: file.flags
          },
          change: changes++
        });
      }
      continue;
    }
    if (known) messages.set(file.id, known);
    const failed = failedBefore.get(file.id);
    if (failed && !retry && failed.size === file.size && failed.mtime === file.mtime) {
      knownFailed.set(file.id, {
        ...failed,
        file: file.path
      });
      continue;
    }
    toParse.push(file);
  }
  for (const [id, message] of index) {
    if (!current.has(id)) vanished.set(changes++, message.oldKey);
  }
  toParse.sort((a, b) => (b.mtime ?? 0) - (a.mtime ?? 0) || (a.path < b.path ? -1 : 1));
  const round = parseBatch * 4;
  let parsedBytes = 0;
  const rewritten = /* @__PURE__ */ new Set();
  const parsing = [];
  const results = [];
  const conversations = /* @__PURE__ */ new Set();
  while (parsing.length < Math.min(parsePerStep, toParse.length)) {
    const room = budget - changes - conversations.size - 1;
    if (room < (parsing.length === 0 ? 1 : MIN_ROUND)) break;
    if (parsedBytes > COMMIT.bytes) break;
    const size = Math.min(round, room, parsePerStep - parsing.length);
    const take = toParse.slice(parsing.length, parsing.length + size);
    parsing.push(...take);
    const batches = [];
    for (let i = 0; i < take.length; i += parseBatch) {
      batches.push(take.slice(i, i + parseBatch).map((file) => file.path));
    }
    for (const answer of await Promise.all(batches.map((paths) => account2.parseMail(paths)))) {
      for (const result of answer) {
        results.push(result);
        if (!result.ok) continue;
        conversations.add(conversationOf(result.value, result.path));
        const text = result.value.text;
        parsedBytes += (NON_ASCII2.test(text) ? 3 : 1) * text.length + 1600;
        const { messageId, inReplyTo, references } = result.value;
        for (const id of [
          messageId,
          inReplyTo,
          ...references
        ]) {
          const joined = id === null ? void 0 : recordOf.get(id);
          if (joined === void 0 || rewritten.has(joined)) continue;
          rewritten.add(joined);
          parsedBytes += 3 * (recordChars.get(joined) ?? 0);
        }
      }
    }
  }
  const byPath = new Map(parsing.map((file) => [
    file.path,
    file
  ]));
  const newFailures = /* @__PURE__ */ new Map();
  const parsedChange = /* @__PURE__ */ new Map();
  for (const result of results) {
    const file = byPath.get(result.path);
    if (!file) continue;
    if (!result.ok) {
      newFailures.set(file.id, {
        file: file.path,
        size: file.size,
        mtime: file.mtime,
        reason: result.reason
      });
      continue;
    }
    const planned = parsedMessage(file, result.value);
    const known = index.get(file.id);
    planned.oldKey = known?.oldKey ?? null;
    planned.oldThread = known?.oldThread ?? null;
    planned.change = changes++;
    parsedChange.set(file.id, planned.change);
    messages.set(file.id, planned);
  }
  const failures = [
    ...knownFailed.values(),
    ...newFailures.values()
  ].sort((a, b) => a.file < b.file ? -1 : 1);
  const keptFailures = failures.slice(0, FAILURES_KEPT);
  const statusChanged = JSON.stringify(oldFailures) !== JSON.stringify(keptFailures);
  const plan = planThreads([
    ...messages.values()
  ], existing, vanished, {
    budget: {
      records: budget - (statusChanged ? 1 : 0),
      ...COMMIT
    }
  });
  const contents = /* @__PURE__ */ new Map();
  for (const record of plan.writes) {
    for (const message of record.messages) {
      if (message.block === null && message.oldKey !== null && !contents.has(message.oldKey)) {
        contents.set(message.oldKey, "");
      }
    }
  }
  await Promise.all([
    ...contents.keys()
  ].map(async (key) => {
    contents.set(key, await memory2.content(key) ?? "");
  }));
  for (const record of plan.writes) {
    const content = record.messages.map((m) => m.block ?? (contents.get(m.oldKey) ?? "").slice(m.oldOffset, m.oldOffset + m.entry.chars)).join("");
    await memory2.write({
      key: record.key,
      title: record.title,
      fields: record.fields,
      content
    });
  }
  for (const key of plan.removes) await memory2.remove(key);
  if (statusChanged) {
    await memory2.write({
      key: STATUS_KEY,
      title: failures.length === 0 ? "Every message was read" : `${failures.length} message${failures.length === 1 ? "" : "s"} could not be read`,
      fields: {
        failed: failures.length,
        failures: keptFailures
      }
    });
  }
  let read = 0;
  const failedPaths = new Set(failures.map((f) => f.file));
  for (const file of files) {
    if (failedPaths.has(file.path)) continue;
    const message = messages.get(file.id);
    if (!message) continue;
    if (message.change !== null && !plan.applied.has(message.change)) continue;
    if (message.entry.size === file.size && message.entry.mtime === file.mtime) read++;
    else if (parsedChange.has(file.id) && plan.applied.has(parsedChange.get(file.id))) read++;
  }
  const coverage = {
    read,
    of: files.length,
    failed: failures.length,
    reasons: failures.slice(0, REASONS_SHOWN).map((f) => ({
      item: f.file,
      reason: f.reason
    })),
    items: {
      one: "message",
      other: "messages"
    }
  };
  const pending = changes - plan.applied.size + (toParse.length - parsing.length);
  if (pending === 0) return {
    coverage
  };
  const progressed = plan.applied.size > 0 || newFailures.size > 0;
  if (!progressed) {
    throw new Error(`The mail sync could not go on: ${pending} changes are left and this step could carry out none of them. Run it again; if this repeats, the Maildir is changing faster than it can be read.`);
  }
  if (step + 1 >= MAX_STEPS) {
    throw new Error(`The mail sync stopped after ${MAX_STEPS} steps with ${pending} changes left: the Maildir kept changing while it was read. The next run goes on from here.`);
  }
  return {
    continue: {
      step: step + 1
    },
    coverage
  };
}
function conversationOf(message, path) {
  return message.references[0] ?? message.inReplyTo ?? message.messageId ?? `file:${path}`;
}
function stepOf(state) {
  if (state !== null && typeof state === "object" && !Array.isArray(state)) {
    const step = state.step;
    if (typeof step === "number" && Number.isInteger(step) && step >= 0) return step;
  }
  return 0;
}
function parsedMessage(file, message) {
  const block = messageBlock(message);
  const parent = message.references.at(-1) ?? message.inReplyTo ?? null;
  const first = message.references[0] ?? null;
  const entry = {
    file: file.path,
    size: file.size,
    mtime: file.mtime,
    messageId: message.messageId,
    parent,
    root: first !== null && first !== parent ? first : null,
    date: message.date,
    from: message.from?.address ?? null,
    subject: message.subject,
    folder: file.folder,
    flags: file.flags,
    chars: block.length
  };
  return {
    id: file.id,
    entry,
    oldKey: null,
    oldThread: null,
    oldOffset: 0,
    change: null,
    block
  };
}
async function readThreads(memory2) {
  const out = /* @__PURE__ */ new Map();
  let cursor;
  do {
    const page = await memory2.list({
      kind: THREAD_KIND,
      limit: 500,
      ...cursor ? {
        cursor
      } : {}
    });
    for (const record of page.records) {
      out.set(record.key, {
        key: record.key,
        title: record.title,
        fields: record.fields
      });
    }
    cursor = page.cursor;
  } while (cursor);
  return out;
}
function failuresOf(value) {
  if (!Array.isArray(value)) return [];
  return value.filter((f) => typeof f === "object" && f !== null && typeof f.file === "string" && typeof f.size === "number" && typeof f.reason === "string").map((f) => ({
    file: f.file,
    size: f.size,
    mtime: f.mtime ?? null,
    reason: f.reason
  }));
}

// src/service.ts
function register() {
  return {
    "mail.sync": (payload, occasion) => mailSyncStep(account, memory, payload?.continue ?? null, {
      // A person asking for a read gets the messages that failed before tried again.
      retryFailed: occasion.task?.trigger === "person"
    })
  };
}
export {
  register as default
};
