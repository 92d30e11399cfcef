/**
 * An action on a device, from the control that takes it: it posts to
 * `POST /api/devices/:id/<action>`, puts the device the server answers in
 * place, and says what happened beside the control — in its own words on
 * success, in the server's (which say what to do) on refusal. A spinner's
 * words wait 300 ms.
 *
 * @module
 */
import { useState } from "preact/hooks";
import type { DeviceResponse } from "../../runtime/web/api/devices_types.ts";
import { messageOf, postJson } from "../api/client.ts";
import { useDelayed } from "../common/use_delayed.ts";
import type { DevicesState } from "./devices_state.ts";

/** What an action said. */
export interface ActionSaid {
  /** The words. */
  text: string;
  /** It failed. */
  error: boolean;
}

/** An action's state, for its control. */
export interface DeviceAction {
  /** The request is out. */
  busy: boolean;
  /** It has been out 300 ms: its words may show. */
  slow: boolean;
  /** What the last one said; null before one, or once cleared. */
  said: ActionSaid | null;
  /** Clears what it said. */
  clear(): void;
  /** Says what an action taken elsewhere (a form, a dialog) did, here. */
  say(text: string): void;
  /**
   * Posts `action` with `body` (the project is added); answers the server's
   * answer, or null when it refused (said as "<failed>: <server's words>").
   * `done` may mark what it says as an error: a run that ended failed.
   */
  act<T extends DeviceResponse>(
    action: string,
    body: Record<string, unknown>,
    words: { done: (answer: T) => string | ActionSaid; failed: string },
  ): Promise<T | null>;
}

/**
 * An action on one device.
 *
 * @param project The project folder.
 * @param id The device's package id.
 * @param devices Where the answered device goes.
 */
export function useDeviceAction(project: string, id: string, devices: DevicesState): DeviceAction {
  const [busy, setBusy] = useState(false);
  const [said, setSaid] = useState<ActionSaid | null>(null);
  const slow = useDelayed(busy, 300);
  return {
    busy,
    slow,
    said,
    clear: () => setSaid(null),
    say: (text) => setSaid({ text, error: false }),
    async act(action, body, words) {
      setBusy(true);
      setSaid(null);
      try {
        const answer = await postJson<never>(
          `/api/devices/${encodeURIComponent(id)}/${action}`,
          { project, ...body },
        );
        devices.put((answer as DeviceResponse).device);
        const said = words.done(answer);
        setSaid(typeof said === "string" ? { text: said, error: false } : said);
        return answer;
      } catch (thrown) {
        setSaid({ text: `${words.failed}: ${messageOf(thrown)}`, error: true });
        return null;
      } finally {
        setBusy(false);
      }
    },
  };
}
