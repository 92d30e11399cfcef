/** `{ name, message }` of anything thrown, for receipts, reports and log lines. */
export function describeError(error: unknown): { name: string; message: string } {
  return error instanceof Error
    ? { name: error.name, message: error.message }
    : { name: "Error", message: String(error) };
}
