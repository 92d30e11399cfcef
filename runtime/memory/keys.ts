/**
 * Every Deno KV key of a project's memory (`<project>/.sync/memory.kv`): a
 * record's metadata, the chunks of its content, each package's generation
 * each device's account epoch and each kind's count of commits. Keys are built here and nowhere else, so their shapes — which
 * memory already written, and carried along with its project, must keep
 * matching — can be read in one place.
 *
 * @module
 */

const RECORD = "record";
const CONTENT = "content";
const GENERATION = "generation";
const ACCOUNT_EPOCH = "account_epoch";
const KIND_COMMITS = "kind_commits";

/**
 * Key of a record's metadata.
 *
 * @param key The record's key, `kind/name`.
 */
export function recordKey(key: string): Deno.KvKey {
  return [RECORD, key];
}

/** Prefix of every record's metadata: what a listing of records reads. */
export function recordsPrefix(): Deno.KvKey {
  return [RECORD];
}

/**
 * Key of one chunk of one version of a record's content.
 *
 * @param key The record's key, `kind/name`.
 * @param contentId Names the version of the content the chunk belongs to.
 * @param index The chunk's place in the content, from 0.
 */
export function contentChunkKey(key: string, contentId: string, index: number): Deno.KvKey {
  return [CONTENT, key, contentId, index];
}

/**
 * The range of the records of a package's own kinds (`<id>.<type>/<name>`):
 * their metadata, or the chunks of their content. A kind's prefix ends in
 * `.`, and `/` is the character after it, so the range holds exactly the
 * keys that begin `<id>.`.
 *
 * @param packageId The package id.
 * @param what The records' metadata, or their content's chunks.
 */
export function packageRecordsRange(
  packageId: string,
  what: "record" | "content",
): { start: Deno.KvKey; end: Deno.KvKey } {
  const head = what === "record" ? RECORD : CONTENT;
  return { start: [head, `${packageId}.`], end: [head, `${packageId}/`] };
}

/**
 * Key of a package's generation, beside the records it fences.
 *
 * @param packageId The package id.
 */
export function generationKey(packageId: string): Deno.KvKey {
  return [GENERATION, packageId];
}

/**
 * Key of a package's account epoch: how many times its device's account
 * changed in the project, beside the records a task step's commit fences by it.
 *
 * @param packageId The package id.
 */
export function accountEpochKey(packageId: string): Deno.KvKey {
  return [ACCOUNT_EPOCH, packageId];
}

/**
 * Key of a kind's count of commits: every commit that changes records of the
 * kind adds one to it (a sum, which no commit checks and so no two commits
 * contend on), so a commit of more records than KV can check one by one
 * checks this instead (see `MemoryTransaction`).
 *
 * @param kind The records' kind, such as `mail.thread`.
 */
export function kindCommitsKey(kind: string): Deno.KvKey {
  return [KIND_COMMITS, kind];
}

/**
 * Whether a key is one of the records' own (metadata, content, a generation,
 * an account epoch or a kind's count of commits): entries other domains stage beside records, such as
 * work orders, may never land there.
 *
 * @param key A key of project memory.
 */
export function isRecordSpaceKey(key: Deno.KvKey): boolean {
  return key[0] === RECORD || key[0] === CONTENT || key[0] === GENERATION ||
    key[0] === ACCOUNT_EPOCH || key[0] === KIND_COMMITS;
}
