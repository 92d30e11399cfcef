import type { Lamp as LampValue } from "../../runtime/web/api/types.ts";

/** Props of {@linkcode Lamp}. */
export interface LampProps {
  /** The package's lamp, as the API reads it. */
  lamp: LampValue;
  /** Shows the label beside the lamp; otherwise it is for screen readers only. */
  showLabel?: boolean;
}

/**
 * A package's lamp: an 8 px circle drawn by its state (outline when dark,
 * filled when steady, easing when breathing, red, or hollow with a pause
 * glyph when paused) and its words. Under reduced motion the breathing lamp
 * holds still and says "Running".
 */
export function Lamp(props: LampProps) {
  const { state, label } = props.lamp;
  return (
    <span class={`lamp-wrap lamp-${state}`}>
      <span class="lamp" aria-hidden="true" />
      <span class={props.showLabel ? "lamp-label" : "visually-hidden"}>
        {state === "breathing"
          ? (
            <>
              <span class="motion-only">{label}</span>
              <span class="reduced-motion-only">Running</span>
            </>
          )
          : label}
      </span>
    </span>
  );
}
