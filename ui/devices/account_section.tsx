import { useRef, useState } from "preact/hooks";
import type { DeviceView, ResetResponse } from "../../runtime/web/api/devices_types.ts";
import { RelativeTime } from "../common/relative_time.tsx";
import { connected } from "../state/connection.ts";
import type { DevicesState } from "./devices_state.ts";
import { ConnectForm } from "./connect_form.tsx";
import { ResetDialog } from "./reset_dialog.tsx";
import { useDeviceAction } from "./use_device_action.ts";

/** Props of {@linkcode AccountSection}. */
export interface AccountSectionProps {
  /** The project folder. */
  project: string;
  /** The device. */
  device: DeviceView;
  /** Where an action's answer goes. */
  devices: DevicesState;
  /** The connect form is open (by Connect…, or by the notice's button). */
  connectOpen: boolean;
  /** Opens or closes the connect form. */
  onConnectOpen: (open: boolean) => void;
}

/**
 * What the device reads from: the account connected — a folder's path, or a
 * remote origin, never its credential — with Connect…, Disconnect and
 * Reset…, each saying what it did beside it.
 */
export function AccountSection(props: AccountSectionProps) {
  const { device } = props;
  const { account } = device;
  const action = useDeviceAction(props.project, device.id, props.devices);
  const [resetting, setResetting] = useState(false);
  const connectButton = useRef<HTMLButtonElement>(null);
  const held = action.busy || !connected.value;
  const kind = device.accepts?.kind ?? "folder";
  const closeForm = () => {
    props.onConnectOpen(false);
    connectButton.current?.focus();
  };
  return (
    <section class="page-section" aria-labelledby="account-title">
      <div class="section-head">
        <h3 id="account-title" class="section-title">
          {kind === "folder" ? "The folder it reads" : "The account it reads"}
        </h3>
        {device.accepts && <span class="tertiary">{device.accepts.description}</span>}
      </div>
      {account
        ? (
          <p class="device-account">
            <span class="mono device-account-where">
              {account.kind === "folder" ? account.folder : account.origin}
            </span>
            <span class="tertiary">
              {" Connected "}
              <RelativeTime iso={new Date(account.connectedAt).toISOString()} />
            </span>
          </p>
        )
        : (
          <p class="secondary">
            Not connected: {device.name} reads nothing until you connect{" "}
            {kind === "folder" ? "a folder" : "an account"}. {device.lastRead
              // Connected once: what it read is still in the project, which a newcomer cannot guess.
              ? "What it read before stays in Records; Reset… removes it."
              : "Installing it did not."}
          </p>
        )}
      <div class="device-actions">
        <button
          type="button"
          class={account ? "button" : "button primary"}
          ref={connectButton}
          aria-expanded={props.connectOpen ? "true" : "false"}
          onClick={() => {
            action.clear();
            props.onConnectOpen(!props.connectOpen);
          }}
        >
          {account
            ? (kind === "folder" ? "Connect another folder…" : "Sign in again…")
            : "Connect…"}
        </button>
        {account && (
          <button
            type="button"
            class="button"
            aria-disabled={held}
            onClick={() =>
              !held && void action.act("disconnect", {}, {
                done: () =>
                  `Disconnected: ${device.name} reads nothing until you connect ${
                    kind === "folder" ? "a folder" : "an account"
                  }; what it read stays.`,
                failed: "Could not disconnect",
              })}
          >
            Disconnect
          </button>
        )}
        <button
          type="button"
          class="button"
          aria-haspopup="dialog"
          aria-disabled={held}
          onClick={() => !held && setResetting(true)}
        >
          Reset…
        </button>
      </div>
      <p
        role="status"
        class={action.said?.error ? "error action-status" : "tertiary action-status"}
      >
        {action.slow ? "Working…" : action.said?.text ?? ""}
      </p>
      {props.connectOpen && (
        <ConnectForm
          project={props.project}
          device={device}
          devices={props.devices}
          onDone={(text) => {
            closeForm();
            action.say(text);
          }}
          onClose={closeForm}
        />
      )}
      {resetting && (
        <ResetDialog
          project={props.project}
          device={device}
          devices={props.devices}
          onClose={() => setResetting(false)}
          onReset={(answer: ResetResponse) => {
            setResetting(false);
            action.say(
              `Reset: ${recordsWords(answer.reset.records)} read from it removed, with its runs; ` +
                `the account is kept${
                  answer.device.account ? " and it reads again from the start" : ""
                }.`,
            );
          }}
        />
      )}
    </section>
  );
}

/** "1 record", "12 records", "no records". */
function recordsWords(count: number): string {
  if (count === 0) return "no records";
  return count === 1 ? "1 record" : `${count.toLocaleString("en-US")} records`;
}
