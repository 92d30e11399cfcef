import { useEffect, useRef, useState } from "preact/hooks";
import type { ConsentResponse, DeviceView } from "../../runtime/web/api/devices_types.ts";
import { RelativeTime } from "../common/relative_time.tsx";
import { connected } from "../state/connection.ts";
import type { DevicesState } from "./devices_state.ts";
import { useDeviceAction } from "./use_device_action.ts";

/** Props of {@linkcode ConsentSection}. */
export interface ConsentSectionProps {
  /** The project folder. */
  project: string;
  /** The device. */
  device: DeviceView;
  /** Where an action's answer goes. */
  devices: DevicesState;
}

/**
 * The consent to process the device's private content: a decision of its
 * own, apart from installing and connecting. An Off | On radio group with
 * the words of what On allows; On asks where the content may go (the
 * endpoint) before it is given, Off takes it back at once.
 */
export function ConsentSection(props: ConsentSectionProps) {
  const { device } = props;
  const action = useDeviceAction(props.project, device.id, props.devices);
  const given = device.consent !== null;
  // On chosen, the endpoint not yet given: the field shows, the consent is not given yet.
  const [asking, setAsking] = useState(false);
  const [endpoint, setEndpoint] = useState("");
  const field = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (asking) field.current?.focus();
  }, [asking]);
  const shown = asking || given;
  const choose = (on: boolean) => {
    if (on === shown || action.busy || !connected.value) return;
    action.clear();
    if (on) {
      setAsking(true);
      return;
    }
    if (asking) {
      setAsking(false);
      return;
    }
    void action.act<ConsentResponse>("consent", { endpoint: null }, {
      done: () => `Taken back: nothing ${device.name} read is processed from now on.`,
      failed: "Could not take it back",
    });
  };
  const allow = async () => {
    if (action.busy) return;
    const answer = await action.act<ConsentResponse>("consent", { endpoint: endpoint.trim() }, {
      done: (answer) =>
        `Allowed: what ${device.name} reads may be processed at ${answer.consent?.endpoint}.`,
      failed: "Could not allow it",
    });
    if (answer) setAsking(false);
  };
  const name = `consent-${device.id}`;
  return (
    <section class="page-section" aria-labelledby="consent-title">
      <div class="section-head device-consent-head">
        <h3 id="consent-title" class="section-title">Processing what it reads</h3>
        <div
          class="segmented"
          role="radiogroup"
          aria-labelledby="consent-title"
          aria-describedby="consent-words"
        >
          {([false, true] as const).map((on) => (
            <label key={String(on)}>
              <input
                type="radio"
                name={name}
                value={on ? "on" : "off"}
                checked={shown === on}
                disabled={!connected.value}
                onChange={() => choose(on)}
              />
              <span>{on ? "On" : "Off"}</span>
            </label>
          ))}
        </div>
      </div>
      <p id="consent-words" class="secondary device-consent-words">
        On lets Sync send the private content {device.name}{" "}
        reads — the text of what it read — to the one endpoint you name, to be analyzed there. Off,
        nothing of it leaves this project. This is apart from connecting its account, and you can
        take it back at any time.
      </p>
      {given && !asking && (
        <p class="tertiary">
          Allowed at <span class="mono">{device.consent!.endpoint}</span>
          {" since "}
          <RelativeTime iso={new Date(device.consent!.grantedAt).toISOString()} />
        </p>
      )}
      {asking && (
        <form
          class="device-connect"
          onSubmit={(event) => {
            event.preventDefault();
            void allow();
          }}
        >
          <label class="field">
            <span>Where it may be processed: an endpoint, such as http://127.0.0.1:11434</span>
            <input
              ref={field}
              type="text"
              class="input mono"
              value={endpoint}
              required
              spellcheck={false}
              onInput={(event) => setEndpoint((event.target as HTMLInputElement).value)}
            />
          </label>
          <div class="device-actions">
            <button type="submit" class="button primary" aria-disabled={action.busy}>
              Allow
            </button>
            <button
              type="button"
              class="button"
              onClick={() => {
                setAsking(false);
                action.clear();
              }}
            >
              Cancel
            </button>
          </div>
        </form>
      )}
      <p
        role="status"
        class={action.said?.error ? "error action-status" : "tertiary action-status"}
      >
        {action.said?.text ?? ""}
      </p>
    </section>
  );
}
