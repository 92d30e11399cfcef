/**
 * What a handler's declared input (the JSON Schema of its agent tool) tells
 * the payload editor: a payload to start from, the fields in a line, and the
 * plain misfits of a payload — a missing required field, a field of the wrong
 * type — named by field before anything is sent. The handler still checks
 * what it is given; this only saves a person a call that cannot be right.
 *
 * @module
 */

/** A JSON Schema as the manifest declares it: read loosely, since any object may come. */
type Schema = Record<string, unknown>;

function propertiesOf(schema: Schema): [string, Schema][] {
  const properties = schema.properties;
  if (typeof properties !== "object" || properties === null || Array.isArray(properties)) {
    return [];
  }
  return Object.entries(properties as Record<string, unknown>).filter(
    (entry): entry is [string, Schema] => typeof entry[1] === "object" && entry[1] !== null,
  );
}

function requiredOf(schema: Schema): string[] {
  return Array.isArray(schema.required)
    ? schema.required.filter((name): name is string => typeof name === "string")
    : [];
}

function typesOf(schema: Schema): string[] {
  const type = schema.type;
  if (typeof type === "string") return [type];
  return Array.isArray(type) ? type.filter((t): t is string => typeof t === "string") : [];
}

/** A value to start a field from, by its type. */
function startValue(schema: Schema): unknown {
  if (Object.hasOwn(schema, "default")) return schema.default;
  switch (typesOf(schema)[0]) {
    case "string":
      return "";
    case "number":
    case "integer":
      return 0;
    case "boolean":
      return false;
    case "array":
      return [];
    case "object":
      return {};
    default:
      return null;
  }
}

/**
 * The payload the editor starts with: each required field of the declared
 * input with an empty value of its type, laid out; `{}` when none is required.
 *
 * @param schema The declared input.
 */
export function payloadTemplate(schema: Schema): string {
  const required = new Set(requiredOf(schema));
  const start = Object.fromEntries(
    propertiesOf(schema).filter(([name]) => required.has(name)).map((
      [name, field],
    ) => [name, startValue(field)]),
  );
  return JSON.stringify(start, null, 2);
}

/**
 * The declared fields in a line: "name (text, required) · count (number)".
 *
 * @param schema The declared input.
 */
export function fieldsLine(schema: Schema): string {
  const required = new Set(requiredOf(schema));
  return propertiesOf(schema).map(([name, field]) => {
    const words = [
      ...typesOf(field).map(typeWord),
      ...(required.has(name) ? ["required"] : []),
    ];
    return words.length ? `${name} (${words.join(", ")})` : name;
  }).join(" · ");
}

/**
 * What does not fit the declared input, one sentence a field: the payload not
 * an object, a required field missing, a field of another type.
 *
 * @param value The payload, parsed.
 * @param schema The declared input.
 * @returns Empty when nothing plain is wrong.
 */
export function payloadMisfits(value: unknown, schema: Schema): string[] {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return [`The payload is ${kindOf(value)}; this handler takes an object, in { }`];
  }
  const given = value as Record<string, unknown>;
  const misfits: string[] = [];
  for (const name of requiredOf(schema)) {
    if (!Object.hasOwn(given, name)) misfits.push(`${name}: required, and missing`);
  }
  for (const [name, field] of propertiesOf(schema)) {
    if (!Object.hasOwn(given, name)) continue;
    const types = typesOf(field);
    if (types.length > 0 && !types.some((type) => fits(given[name], type))) {
      misfits.push(
        `${name}: expected ${types.map(typeWord).join(" or ")}, got ${kindOf(given[name])}`,
      );
    }
  }
  if (schema.additionalProperties === false) {
    const known = new Set(propertiesOf(schema).map(([name]) => name));
    for (const name of Object.keys(given)) {
      if (!known.has(name)) misfits.push(`${name}: not a field this handler takes`);
    }
  }
  return misfits;
}

function fits(value: unknown, type: string): boolean {
  switch (type) {
    case "string":
      return typeof value === "string";
    case "number":
      return typeof value === "number";
    case "integer":
      return Number.isInteger(value);
    case "boolean":
      return typeof value === "boolean";
    case "array":
      return Array.isArray(value);
    case "object":
      return typeof value === "object" && value !== null && !Array.isArray(value);
    case "null":
      return value === null;
    default:
      return true;
  }
}

function typeWord(type: string): string {
  switch (type) {
    case "string":
      return "text";
    case "integer":
      return "a whole number";
    case "array":
      return "a list";
    case "object":
      return "an object";
    case "boolean":
      return "true or false";
    default:
      return type;
  }
}

function kindOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  if (typeof value === "string") return "text";
  if (typeof value === "object") return "an object";
  if (typeof value === "boolean") return String(value);
  return typeof value === "number" ? `the number ${value}` : typeof value;
}
