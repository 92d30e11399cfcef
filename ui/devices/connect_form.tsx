import { useEffect, useRef, useState } from "preact/hooks";
import type { ConnectResponse, DeviceView } from "../../runtime/web/api/devices_types.ts";
import { FolderBrowser } from "../common/folder_browser.tsx";
import { connected } from "../state/connection.ts";
import type { DevicesState } from "./devices_state.ts";
import { useDeviceAction } from "./use_device_action.ts";

/** Props of {@linkcode ConnectForm}. */
export interface ConnectFormProps {
  /** The project folder. */
  project: string;
  /** The device. */
  device: DeviceView;
  /** Where the answer goes. */
  devices: DevicesState;
  /** Told what connecting did, once it did. */
  onDone: (text: string) => void;
  /** Closes it without connecting. */
  onClose: () => void;
}

/**
 * Connects the device's account: a folder chosen by going through folders,
 * or a remote's origin and its credential (a password field; the credential
 * is sent once and never shown again, nor answered). A refusal says what to
 * do and keeps what was typed, or the folder the browser is in.
 */
export function ConnectForm(props: ConnectFormProps) {
  const { device } = props;
  const action = useDeviceAction(props.project, device.id, props.devices);
  const account = device.account;
  const [origin, setOrigin] = useState(account?.kind === "remote" ? account.origin : "");
  const [credential, setCredential] = useState("");
  const first = useRef<HTMLElement>(null);
  useEffect(() => {
    first.current?.focus();
  }, []);
  const connect = async (body: Record<string, unknown>, where: string) => {
    if (action.busy || !connected.value) return;
    const answer = await action.act<ConnectResponse>("connect", body, {
      done: () => "",
      failed: "Could not connect",
    });
    if (!answer) return;
    setCredential("");
    props.onDone(
      `Connected ${where}: ${device.name} reads it${
        answer.device.modes.includes("scheduled") || answer.device.modes.includes("observation")
          ? " now, then by itself"
          : " when you ask"
      }.`,
    );
  };
  const said = action.said?.error ? action.said.text : "";
  if (device.accepts?.kind === "remote") {
    return (
      <form
        class="device-connect"
        aria-labelledby="connect-title"
        onSubmit={(event) => {
          event.preventDefault();
          void connect({ kind: "remote", origin: origin.trim(), credential }, origin.trim());
        }}
      >
        <h4 id="connect-title" class="device-connect-title">
          Connect {device.name}'s account
        </h4>
        <label class="field">
          <span>Address of the server, such as https://mail.example.com</span>
          <input
            ref={first as never}
            type="url"
            class="input mono"
            value={origin}
            required
            autoComplete="url"
            spellcheck={false}
            onInput={(event) => setOrigin((event.target as HTMLInputElement).value)}
          />
        </label>
        <label class="field">
          <span>Password or token</span>
          <input
            type="password"
            class="input"
            value={credential}
            required
            autoComplete="new-password"
            onInput={(event) => setCredential((event.target as HTMLInputElement).value)}
          />
        </label>
        <p class="tertiary">
          Sync keeps the credential for this device only and never shows it again.
        </p>
        {said && <p class="error" role="alert">{said}</p>}
        <div class="device-actions">
          <button type="submit" class="button primary" aria-disabled={action.busy}>
            Connect
          </button>
          <button type="button" class="button" onClick={props.onClose}>Cancel</button>
          <span role="status" class="tertiary">{action.slow ? "Connecting…" : ""}</span>
        </div>
      </form>
    );
  }
  return (
    <div class="device-connect">
      <h4 id="connect-title" class="device-connect-title" tabIndex={-1} ref={first as never}>
        Choose the folder {device.name} reads
      </h4>
      <FolderBrowser
        label={`Choose the folder ${device.name} reads`}
        start={account?.kind === "folder" && device.notice?.kind !== "allow-access"
          ? account.folder
          : undefined}
        chooseWords="Connect this folder"
        onChoose={(path) => void connect({ kind: "folder", folder: path }, path)}
        onClose={props.onClose}
      />
      {said && <p class="error" role="alert">{said}</p>}
      <p role="status" class="tertiary action-status">{action.slow ? "Connecting…" : ""}</p>
    </div>
  );
}
