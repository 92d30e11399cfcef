import { useEffect, useRef, useState } from "preact/hooks";
import { notAnswering } from "../api/client.ts";
import { connected } from "./connection.ts";

/**
 * An action's error line, as `useState` keeps it, that goes by itself when
 * it said only that Sync did not answer and the window's streams are open
 * again: what failed then can be tried again, and the line would mislead.
 */
export function useAnsweringError(): [string | null, (error: string | null) => void] {
  const [error, setError] = useState<string | null>(null);
  const was = useRef(connected.value);
  const now = connected.value;
  useEffect(() => {
    const cameBack = now && !was.current;
    was.current = now;
    if (cameBack && notAnswering(error)) setError(null);
  }, [now]);
  return [error, setError];
}
