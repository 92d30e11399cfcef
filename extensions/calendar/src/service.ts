// The Calendar applet's service module: its `sync` task's handler, which reads the calendar
// folder the person connected and keeps one calendar.event record per occurrence, and
// `calendar.owner`, which says whose calendar it is. The logic is in the pure modules beside
// it; `deno task build extensions/calendar` bundles them.
import { account, type Handlers, memory } from "@sync/extension-api/service";
import type { Json } from "./account_types.ts";
import { calendarSyncStep } from "./calendar_sync_step.ts";
import { OWNER_KEY, ownerAddresses } from "./owner_addresses.ts";

export default function register(): Handlers {
  return {
    "calendar.sync": (payload: { continue?: unknown } | null, occasion) =>
      calendarSyncStep(account, memory, (payload?.continue ?? null) as Json, {
        now: Date.now(),
        // A person asking for a read gets the files that failed before tried again.
        retryFailed: occasion.task?.trigger === "person",
      }),
    "calendar.owner": async (payload: { addresses?: unknown } | null) => {
      const addresses = ownerAddresses({ addresses: (payload?.addresses ?? null) as Json });
      if (addresses.length === 0) {
        throw new Error(
          'calendar.owner needs the calendar owner\'s addresses: give { "addresses": ["you@example.org"] }',
        );
      }
      await memory.write({
        key: OWNER_KEY,
        title: `The calendar is ${addresses.join(", ")}'s`,
        fields: { addresses },
      });
      return { addresses };
    },
  };
}
