import type { InstallCard } from "../../runtime/web/api/events_types.ts";
import { PermissionList } from "./permission_list.tsx";
import { WidePermissions } from "./wide_permissions.tsx";

/** Props of {@linkcode InstallPermissions}. */
export interface InstallPermissionsProps {
  /** The card whose permissions to show. */
  card: InstallCard;
}

/**
 * What installing asks this project to approve, in `sync install`'s words:
 * for an update that widens them, only what is new; for one that does not,
 * that nothing new is asked. What reaches past what Sync guards (a program
 * run with full user access, a server on this machine or the local network)
 * is set apart first, under a warning.
 */
export function InstallPermissions(props: InstallPermissionsProps) {
  const { card } = props;
  const pkg = card.package!;
  if (card.approval === "approved") {
    return (
      <section class="install-card-section" aria-labelledby="install-card-asks">
        <h4 id="install-card-asks" class="install-card-heading">What it asks</h4>
        <p class="secondary">
          Nothing new: this project approved everything it asks
          {card.approvedVersion ? ` (with ${pkg.id} ${card.approvedVersion})` : ""}.
        </p>
      </section>
    );
  }
  const wide = card.permissions.filter((p) => p.wide);
  const plain = card.permissions.filter((p) => !p.wide);
  return (
    <section class="install-card-section" aria-labelledby="install-card-asks">
      <h4 id="install-card-asks" class="install-card-heading">
        {card.approval === "widens" ? "What it asks for that is new" : "What it asks"}
      </h4>
      {card.approval === "widens" && (
        <p class="secondary">
          {pkg.id} {card.approvedVersion} keeps serving this project until you approve{" "}
          {pkg.version}.
        </p>
      )}
      <WidePermissions permissions={wide} titleId="install-card-wide-title" />
      {card.permissions.length === 0
        ? <p class="secondary">No permissions.</p>
        : plain.length > 0 &&
          <PermissionList permissions={plain} />}
      {card.approval === "new" && card.installable && (
        <p class="tertiary">Approving installs it into this project with these permissions.</p>
      )}
    </section>
  );
}
