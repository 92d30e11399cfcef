/**
 * The device's account a task step reaches through the `account.*` host
 * functions.
 *
 * @module
 */

/**
 * What a task step may reach of its device's account: the folder it reads,
 * or the origin it reaches with the credential the host adds to requests
 * (never shown to the isolate). `epoch` is the account epoch the run began
 * under: its commit is refused once the account changed.
 */
export type AccountGrant =
  | { id: string; epoch: number; kind: "folder"; folder: string }
  | { id: string; epoch: number; kind: "remote"; origin: string; credential: string };
