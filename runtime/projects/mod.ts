/**
 * Projects: project folders and what they declare (`.sync/extensions.json`), what the
 * installation remembers of them, and the installation home itself.
 *
 * This file is the domain's public entry: other domains import from it, never
 * from the files behind it.
 *
 * @module
 */
export { openInstallation, syncHome } from "./home.ts";
export {
  findInstallationOwner,
  readInstallationOwner,
  tryOwnInstallation,
} from "./installation_owner.ts";
export type { InstallationOwnership, OwnerNote, OwnerNow } from "./installation_owner.ts";
export { installationToken, readInstallationToken } from "./installation_token.ts";
export { projectKey, projectsChangedKey, projectsPrefix } from "./keys.ts";
export {
  assertOwnerSocketFits,
  OWNER_SOCKET_ORIGIN,
  ownerSocketClient,
  ownerSocketPath,
  removeLeftOwnerSocket,
} from "./owner_socket.ts";
export type { OwnerSocketAnswer, OwnerSocketClient, OwnerSocketRequest } from "./owner_socket.ts";
export { openableFolder } from "./openable_folder.ts";
export { OwnerAnswerError, postToOwner } from "./post_to_owner.ts";
export { OwnerCutOffError, OwnerUnreachedError } from "./owner_socket_errors.ts";
export type { OwnerAnswer, OwnerPost } from "./post_to_owner.ts";
export type { OpenableFolderOptions } from "./openable_folder.ts";
export { projectPath } from "./project_path.ts";
export type { ProjectPathOptions } from "./project_path.ts";
export {
  keyableProjectPath,
  readDeclaredIds,
  readProject,
  rememberProject,
  resolveProjectDir,
  writeDeclaredIds,
} from "./project.ts";
export type { ProjectInfo } from "./project.ts";
