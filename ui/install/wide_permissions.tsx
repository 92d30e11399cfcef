import { type ListedPermission, PermissionList } from "./permission_list.tsx";

/** One permission as the warning lists it. */
export type WidePermission = ListedPermission;

/** Props of {@linkcode WidePermissions}. */
export interface WidePermissionsProps {
  /** The permissions that reach past what Sync guards; nothing is shown when empty. */
  permissions: readonly WidePermission[];
  /** The id of the warning's title, unique on the page: the group is named by it. */
  titleId: string;
}

/**
 * What reaches past what Sync guards (a program run with full user access, a
 * server on this machine or the local network), set apart under a warning:
 * the same tier on the install card and on an update that waits on an
 * extension's page.
 */
export function WidePermissions(props: WidePermissionsProps) {
  const { permissions, titleId } = props;
  if (permissions.length === 0) return null;
  return (
    <div class="install-card-wide" role="group" aria-labelledby={titleId}>
      <p id={titleId} class="install-card-wide-title">
        <span aria-hidden="true" class="install-card-wide-mark">!</span>
        Beyond what Sync guards
      </p>
      <p class="secondary">
        Sync cannot see what {permissions.length === 1 ? "this does" : "these do"}:{" "}
        {reach(permissions)}. Approve only a package you trust.
      </p>
      <PermissionList permissions={permissions} />
    </div>
  );
}

/** Why permissions beyond Sync's guard reach so far, for the kinds among them. */
function reach(wide: readonly WidePermission[]): string {
  const local = wide.some((p) => p.permission.startsWith("net:"));
  const programs = wide.some((p) => !p.permission.startsWith("net:"));
  return [
    programs ? "a program runs as you, with full user access" : "",
    local ? "a server on this machine or your network trusts whoever asks" : "",
  ].filter((part) => part !== "").join(", and ");
}
