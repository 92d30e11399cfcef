/** One permission as a list shows it. */
export interface ListedPermission {
  /** As the manifest declares it, such as `host.processes`. */
  permission: string;
  /** What it allows, in the words `sync install` prints. */
  text: string;
}

/** Props of {@linkcode PermissionList}. */
export interface PermissionListProps {
  /** The permissions, in the order they are shown. */
  permissions: readonly ListedPermission[];
}

/** Permissions, each with what it allows: the install card's, the warning tier's, an update's. */
export function PermissionList(props: PermissionListProps) {
  return (
    <ul class="install-card-permissions">
      {props.permissions.map((p) => (
        <li key={p.permission}>
          <span class="mono install-card-permission">{p.permission}</span>
          <span class="secondary">{p.text}</span>
        </li>
      ))}
    </ul>
  );
}
