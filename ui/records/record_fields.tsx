import type { RecordSummary } from "../../runtime/web/api/records_types.ts";

/** Props of {@linkcode RecordFields}. */
export interface RecordFieldsProps {
  /** The record's fields, as written. */
  fields: RecordSummary["fields"];
}

/** A record's fields, one row each: a string as it is, anything else as JSON, all as text. */
export function RecordFields(props: RecordFieldsProps) {
  const entries = Object.entries(props.fields);
  if (entries.length === 0) return <p class="secondary">No fields.</p>;
  return (
    <dl class="record-fields">
      {entries.map(([name, value]) => (
        <div key={name} class="record-field">
          <dt class="mono secondary">{name}</dt>
          <dd class={typeof value === "string" ? "" : "mono"}>
            {typeof value === "string" ? value : shown(value)}
          </dd>
        </div>
      ))}
    </dl>
  );
}

/** A value as JSON: on one line while it is short, indented when it is not. */
function shown(value: unknown): string {
  const line = JSON.stringify(value);
  return line.length <= 60 ? line : JSON.stringify(value, null, 2);
}
