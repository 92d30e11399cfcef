import { ListFilter } from "../common/list_filter.tsx";
import { matchesFilter } from "../common/filter_match.ts";
import { NoMatches } from "../common/no_matches.tsx";
import { useListKeys } from "../common/use_list_keys.ts";
import { listFilter } from "../state/list_filters.ts";
import { installOpen } from "../state/install_open.ts";
import type { ProjectState } from "../state/project_state.ts";
import { navigate, projectPath } from "../state/route.ts";
import type { DevicesState } from "./devices_state.ts";
import { DeviceRow } from "./device_row.tsx";

/** Props of {@linkcode DeviceList}. */
export interface DeviceListProps {
  /** The project's live state. */
  state: ProjectState;
  /** Its devices. */
  devices: DevicesState;
  /** The selected device's id. */
  selected: string | null;
}

/**
 * The Devices area's list: each device of the project's applets with its
 * lamp and state, and a filter. With none, it says how to get one and offers
 * the install dialog.
 */
export function DeviceList(props: DeviceListProps) {
  const { state } = props;
  const devices = props.devices.devices.value;
  const filter = listFilter(state.project, "devices");
  const column = useListKeys<HTMLElement>({ rows: ".device-link" });
  const shown = (devices ?? []).filter((device) =>
    matchesFilter(filter.value, [device.name, device.id, device.description])
  );
  return (
    <section class="list-column" aria-labelledby="devices-title" ref={column}>
      <header class="column-header">
        <h1 id="devices-title" class="column-title">Devices</h1>
        {devices !== null && devices.length > 0 && (
          <ListFilter
            value={filter}
            label="Filter devices"
            placeholder="Filter by name or what it reads"
            shown={shown.length}
            total={devices.length}
            units={["device", "devices"]}
          />
        )}
      </header>
      {props.devices.error.value && <p class="error" role="alert">{props.devices.error.value}</p>}
      {devices !== null && devices.length === 0 && (
        <div class="empty empty-action">
          <p class="secondary">
            No device in this project. Install an applet such as Mail or Calendar.
          </p>
          <button
            type="button"
            class="button primary"
            aria-haspopup="dialog"
            onClick={() => {
              navigate(projectPath(state.project, "extensions"));
              installOpen.value = true;
            }}
          >
            Install an applet…
          </button>
        </div>
      )}
      {devices !== null && devices.length > 0 && shown.length === 0 && (
        <NoMatches value={filter} units="devices" />
      )}
      {shown.length > 0 && (
        <ul class="extension-list" aria-label="Devices in this project">
          {shown.map((device) => (
            <DeviceRow
              key={device.id}
              project={state.project}
              device={device}
              selected={device.id === props.selected}
            />
          ))}
        </ul>
      )}
    </section>
  );
}
