import { useEffect, useState } from "preact/hooks";
import type { SwitchResponse } from "../../runtime/web/api/types.ts";
import { messageOf, postJson } from "../api/client.ts";
import { connected } from "../state/connection.ts";

/** Props of {@linkcode ClockSwitch}. */
export interface ClockSwitchProps {
  /** The package id. */
  id: string;
  /** The package's name, for what the switch says it did. */
  name: string;
  /** The project folder. */
  project: string;
  /** Whether its clock runs in this project, as the page last read it. */
  on: boolean;
  /** Called once the switch is made, to read the page again. */
  onSwitched: () => void;
}

/**
 * The Off | On control of a package's clock in this project: a radio group
 * drawn as two segments. It moves at once, says what happened beside it, and
 * goes back, saying why, when the switch is refused.
 */
export function ClockSwitch(props: ClockSwitchProps) {
  const [pending, setPending] = useState<boolean | null>(null);
  const [said, setSaid] = useState<{ text: string; error: boolean } | null>(null);
  const shown = pending ?? props.on;
  // The choice holds until the page, read again, agrees with it.
  useEffect(() => {
    if (pending !== null && props.on === pending) setPending(null);
  }, [props.on]);
  const choose = async (on: boolean) => {
    if (on === shown) return;
    setPending(on);
    setSaid(null);
    try {
      await postJson<SwitchResponse>(
        `/api/extensions/${encodeURIComponent(props.id)}/switch`,
        { project: props.project, state: on ? "on" : "off" },
      );
      setSaid({
        text: on
          ? `Switched on: the clock runs ${props.name} in this project again.`
          : `Switched off: the clock will not run ${props.name} in this project until you switch it on.`,
        error: false,
      });
      props.onSwitched();
    } catch (thrown) {
      setPending(null);
      setSaid({
        text: `Could not switch it ${on ? "on" : "off"}: ${messageOf(thrown)}`,
        error: true,
      });
    }
  };
  const name = `clock-${props.id}`;
  return (
    <div class="clock-switch">
      <div class="segmented" role="radiogroup" aria-label="Clock in this project">
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
      <p role="status" class={said?.error ? "error switch-said" : "tertiary switch-said"}>
        {said?.text ?? ""}
      </p>
    </div>
  );
}
