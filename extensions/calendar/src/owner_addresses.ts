import type { Json } from "./account_types.ts";

/** The record holding the addresses of the calendar's owner, as `calendar.owner` sets them. */
export const OWNER_KEY = "calendar.owner/self";

/** The addresses in the owner record's fields: valid-looking addresses, lowercased, sorted. */
export function ownerAddresses(fields: { [name: string]: Json } | null | undefined): string[] {
  const value = fields?.addresses;
  if (!Array.isArray(value)) return [];
  const out = new Set<string>();
  for (const item of value) {
    if (typeof item === "string" && /^[^\s@]+@[^\s@]+$/.test(item.trim())) {
      out.add(item.trim().toLowerCase());
    }
  }
  return [...out].sort();
}
