/**
 * How a request over the owner's socket failed, told apart by where it
 * failed rather than by what the other end wrote: before anything was sent,
 * or after.
 *
 * Both are `TypeError`s, as `fetch` throws a failure to reach a server or
 * to read its answer.
 *
 * @module
 */

/**
 * Nothing listens on the owner's socket, or the connection was refused or
 * turned away: the request was never sent, so sending it again elsewhere
 * cannot make it happen twice.
 */
export class OwnerUnreachedError extends TypeError {
  /** The error's name. */
  override name = "OwnerUnreachedError";
}

/**
 * The connection was made and the request written, and then the answer did
 * not come or could not be read whole: the owner may have acted on it.
 */
export class OwnerCutOffError extends TypeError {
  /** The error's name. */
  override name = "OwnerCutOffError";
}
