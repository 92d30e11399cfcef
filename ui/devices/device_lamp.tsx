import type { DeviceLamp as LampValue } from "../../runtime/web/api/devices_types.ts";
import { lampWords } from "./device_words.ts";

/** Props of {@linkcode DeviceLamp}. */
export interface DeviceLampProps {
  /** The device's lamp. */
  lamp: LampValue;
  /** Shows its words beside it; otherwise they are for screen readers only. */
  showLabel?: boolean;
}

/**
 * A device's lamp: the 8 px circle the extensions' lamps draw (an outline
 * when not connected, filled when ready, easing while it reads, red when it
 * needs the person, hollow with a pause glyph when paused) and its words.
 * Under reduced motion the reading lamp holds still and says "Running".
 */
export function DeviceLamp(props: DeviceLampProps) {
  const { lamp } = props;
  return (
    <span class={`lamp-wrap lamp-${lamp}`} data-lamp={lamp}>
      <span class="lamp" aria-hidden="true" />
      <span class={props.showLabel ? "lamp-label" : "visually-hidden"}>
        {lamp === "breathing"
          ? (
            <>
              <span class="motion-only">{lampWords(lamp)}</span>
              <span class="reduced-motion-only">Running</span>
            </>
          )
          : lampWords(lamp)}
      </span>
    </span>
  );
}
