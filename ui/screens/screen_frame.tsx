import { useLayoutEffect, useRef, useState } from "preact/hooks";
import { BRIDGE_VERSION, type ConnectMessage } from "./bridge_protocol.ts";
import { type Activation, ScreenBridge } from "./screen_bridge.ts";
import { openScreenProcesses } from "./screen_processes.ts";

/**
 * The extension API's version the app's screens are given: `API_VERSION` of
 * `@sync/extension-api/ui`, written out so the app bundles no module of the API.
 */
const API_VERSION = "2.1.0";

/** Props of {@linkcode ScreenFrame}. */
export interface ScreenFrameProps {
  /** The project folder. */
  project: string;
  /** The package whose screen it is. */
  id: string;
  /** The package's name, as people see it. */
  name: string;
  /** Hears what the screen says of its activation. */
  onActivation?: (activation: Activation) => void;
}

/**
 * A package's screen in a sandboxed frame (`allow-scripts` only: an opaque
 * origin, no cookie, no top navigation, no popups). Each load of the frame
 * gets a new channel and a new instance of its processes; the old ones are
 * closed, so a screen that reloads leaves nothing of the load before.
 */
export function ScreenFrame(props: ScreenFrameProps) {
  const frame = useRef<HTMLIFrameElement>(null);
  const [load, setLoad] = useState(0);
  const src = `/screens/${encodeURIComponent(props.id)}?${new URLSearchParams({
    project: props.project,
    ...(load > 0 ? { load: String(load) } : {}),
  })}`;
  const onActivation = useRef(props.onActivation);
  onActivation.current = props.onActivation;
  const name = useRef(props.name);
  name.current = props.name;

  useLayoutEffect(() => {
    const element = frame.current;
    if (!element) return;
    let bridge: ScreenBridge | null = null;
    // The first load after the app set the address is the screen's document,
    // asked for with the app's cookie. A load the frame did by itself (the
    // screen moved or reloaded its own document) is sent back to a fresh
    // document the app asks for.
    let expecting = true;
    const onLoad = () => {
      bridge?.close();
      bridge = null;
      if (!expecting) {
        expecting = true;
        onActivation.current?.({ state: "waiting" });
        setLoad((n) => n + 1);
        return;
      }
      expecting = false;
      const target = element.contentWindow;
      if (!target) return;
      const channel = new MessageChannel();
      const instance = crypto.randomUUID();
      bridge = new ScreenBridge(channel.port1, {
        project: props.project,
        id: props.id,
        processes: openScreenProcesses(props.project, props.id, instance),
        onActivation: (activation) => onActivation.current?.(activation),
      });
      const connect: ConnectMessage = {
        sync: "screen-connect",
        version: BRIDGE_VERSION,
        apiVersion: API_VERSION,
        screen: { id: props.id, name: name.current, project: props.project },
      };
      // The frame's origin is opaque and has no name to aim at; only the port is used after this.
      target.postMessage(connect, "*", [channel.port2]);
    };
    element.addEventListener("load", onLoad);
    return () => {
      element.removeEventListener("load", onLoad);
      bridge?.close();
    };
  }, [props.project, props.id, load]);

  return (
    <iframe
      ref={frame}
      key={load}
      class="screen-frame"
      src={src}
      title={`${props.name}: the extension's screen`}
      sandbox="allow-scripts"
      referrerpolicy="no-referrer"
    />
  );
}
