/**
 * Every Deno KV key the applets write in the installation: a device's
 * account and its credential, the consent to process its content, the
 * device's own state, its tasks and their attempts. Keys are built here and
 * nowhere else, so their shapes — which data already stored must keep
 * matching — can be read in one place.
 *
 * Each key starts with the project and then the package id: a device is
 * the package within a project.
 *
 * @module
 */

const ACCOUNT = "account";
const ACCOUNT_CREDENTIAL = "account_credential";
const CONSENT = "consent";
const DEVICE = "device";
const TASK = "task";
const TASK_ATTEMPT = "task_attempt";

/**
 * Key of a device's account (`Account`).
 *
 * @param project The project's resolved path.
 * @param pkg The package id.
 */
export function accountKey(project: string, pkg: string): Deno.KvKey {
  return [ACCOUNT, project, pkg];
}

/** Prefix of every connected account in the installation: what the task runner looks over. */
export function accountsPrefix(): Deno.KvKey {
  return [ACCOUNT];
}

/**
 * Key of the credential of a device's remote account; read only to build a
 * task step's grant.
 *
 * @param project The project's resolved path.
 * @param pkg The package id.
 */
export function accountCredentialKey(project: string, pkg: string): Deno.KvKey {
  return [ACCOUNT_CREDENTIAL, project, pkg];
}

/**
 * Key of the consent to process a device's private content.
 *
 * @param project The project's resolved path.
 * @param pkg The package id.
 */
export function consentKey(project: string, pkg: string): Deno.KvKey {
  return [CONSENT, project, pkg];
}

/**
 * Key of a device's own state (`DeviceRecord`): paused, its notice, its last read.
 *
 * @param project The project's resolved path.
 * @param pkg The package id.
 */
export function deviceKey(project: string, pkg: string): Deno.KvKey {
  return [DEVICE, project, pkg];
}

/**
 * Key of a task's identity and schedule (`TaskRecord`).
 *
 * @param project The project's resolved path.
 * @param pkg The package id.
 * @param task The task's name, such as `sync`.
 */
export function taskKey(project: string, pkg: string, task: string): Deno.KvKey {
  return [TASK, project, pkg, task];
}

/**
 * Prefix of a device's tasks.
 *
 * @param project The project's resolved path.
 * @param pkg The package id.
 */
export function tasksPrefix(project: string, pkg: string): Deno.KvKey {
  return [TASK, project, pkg];
}

/**
 * Key of one attempt of a task; attempt ids sort by the time they began.
 *
 * @param project The project's resolved path.
 * @param pkg The package id.
 * @param task The task's name.
 * @param attempt The attempt's id.
 */
export function taskAttemptKey(
  project: string,
  pkg: string,
  task: string,
  attempt: string,
): Deno.KvKey {
  return [TASK_ATTEMPT, project, pkg, task, attempt];
}

/**
 * Prefix of the attempts of a device: of one task, or of all of them.
 *
 * @param project The project's resolved path.
 * @param pkg The package id.
 * @param task The task's name; omitted for every task of the device.
 */
export function taskAttemptsPrefix(project: string, pkg: string, task?: string): Deno.KvKey {
  return task === undefined ? [TASK_ATTEMPT, project, pkg] : [TASK_ATTEMPT, project, pkg, task];
}

/** Prefix of every task attempt in the installation: what a starting runner looks over for runs left unfinished. */
export function allTaskAttemptsPrefix(): Deno.KvKey {
  return [TASK_ATTEMPT];
}
