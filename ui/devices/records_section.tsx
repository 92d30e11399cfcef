import { useEffect, useState } from "preact/hooks";
import type { DeviceView } from "../../runtime/web/api/devices_types.ts";
import type { RecordKindCount, RecordKindsResponse } from "../../runtime/web/api/records_types.ts";
import { getJson } from "../api/client.ts";
import { Link } from "../common/link.tsx";
import { projectPath } from "../state/route.ts";

/** Props of {@linkcode RecordsSection}. */
export interface RecordsSectionProps {
  /** The project folder. */
  project: string;
  /** The device. */
  device: DeviceView;
}

/**
 * What the device keeps of what it read: each kind of its package's records
 * with how many there are, a link to them in Records. Read again after each
 * of its reads (its last read's time changes).
 */
export function RecordsSection(props: RecordsSectionProps) {
  const { device } = props;
  const [kinds, setKinds] = useState<RecordKindCount[] | null>(null);
  const [failed, setFailed] = useState(false);
  const lastRead = device.lastRead?.at ?? null;
  useEffect(() => {
    let current = true;
    getJson<RecordKindsResponse>("/api/records/kinds", { project: props.project }).then(
      (answer) => {
        if (!current) return;
        setKinds(answer.kinds.filter((kind) => kind.kind.startsWith(`${device.id}.`)));
        setFailed(false);
      },
      () => current && setFailed(true),
    );
    return () => {
      current = false;
    };
  }, [props.project, device.id, lastRead]);
  const n = (value: number) => value.toLocaleString("en-US");
  return (
    <section class="page-section" aria-labelledby="device-records-title">
      <h3 id="device-records-title" class="section-title">What it keeps</h3>
      {failed
        ? <p class="secondary">Its records could not be counted just now.</p>
        : kinds === null
        ? <p class="secondary">Counting its records…</p>
        : kinds.length === 0
        ? <p class="secondary">No records yet: they appear here after its first read.</p>
        : (
          <ul class="device-record-kinds">
            {kinds.map((kind) => (
              <li key={kind.kind}>
                <Link
                  href={projectPath(props.project, "records", kind.kind)}
                  label={`Open the ${kind.kind} records in Records`}
                >
                  {kind.kind}
                </Link>{" "}
                <span class="tertiary">
                  {n(kind.count)}
                  {kind.more ? "+" : ""} {kind.count === 1 && !kind.more ? "record" : "records"}
                </span>
              </li>
            ))}
          </ul>
        )}
    </section>
  );
}
