import type { DeviceView, ResetResponse } from "../../runtime/web/api/devices_types.ts";
import { Dialog } from "../common/dialog.tsx";
import type { DevicesState } from "./devices_state.ts";
import { useDeviceAction } from "./use_device_action.ts";

/** Props of {@linkcode ResetDialog}. */
export interface ResetDialogProps {
  /** The project folder. */
  project: string;
  /** The device. */
  device: DeviceView;
  /** Where the answer goes. */
  devices: DevicesState;
  /** Cancel or Escape. */
  onClose: () => void;
  /** Told what the reset did, once done. */
  onReset: (answer: ResetResponse) => void;
}

/**
 * The confirmation of a reset: what goes (the records read from the device,
 * its runs and its last read) and what stays (the account, the consent, a
 * pause). A refusal stays in the dialog, in the server's words.
 */
export function ResetDialog(props: ResetDialogProps) {
  const { device } = props;
  const action = useDeviceAction(props.project, device.id, props.devices);
  const reset = async () => {
    if (action.busy) return;
    const answer = await action.act<ResetResponse>("reset", {}, {
      done: () => "",
      failed: "Could not reset it",
    });
    if (answer) props.onReset(answer);
  };
  return (
    <Dialog title={`Reset ${device.name}?`} onClose={props.onClose}>
      <div class="removal">
        <h3 class="removal-title">What goes</h3>
        <ul class="removal-list">
          <li>The records read from it, in this project's memory</li>
          <li>Its runs and their attempts, and what its last read covered</li>
        </ul>
        <h3 class="removal-title">What stays</h3>
        <ul class="removal-list">
          <li>
            {device.account
              ? `The account: ${
                device.account.kind === "folder" ? device.account.folder : device.account.origin
              }, so it reads again from the start`
              : "No account is connected now, so none is dropped"}
          </li>
          <li>The consent to process its content, and a pause</li>
        </ul>
      </div>
      {action.said?.error && <p class="error" role="alert">{action.said.text}</p>}
      <p role="status" class="tertiary action-status">
        {action.slow ? `Resetting ${device.name}…` : ""}
      </p>
      <div class="dialog-actions">
        <button type="button" class="button" onClick={props.onClose} disabled={action.busy}>
          Cancel
        </button>
        <button
          type="button"
          class="button danger primary"
          onClick={() => void reset()}
          aria-disabled={action.busy}
          autofocus
        >
          Reset
        </button>
      </div>
    </Dialog>
  );
}
