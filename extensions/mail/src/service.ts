// The Mail applet's service module: its `sync` task's handler, which reads the Maildir the
// person connected and keeps one mail.thread record per conversation. The logic is in the
// pure modules beside it; `deno task build extensions/mail` bundles them.
import { account, type Handlers, memory } from "@sync/extension-api/service";
import type { Json } from "./account_types.ts";
import { mailSyncStep } from "./mail_sync_step.ts";

export default function register(): Handlers {
  return {
    "mail.sync": (payload: { continue?: unknown } | null, occasion) =>
      mailSyncStep(account, memory, (payload?.continue ?? null) as Json, {
        // A person asking for a read gets the messages that failed before tried again.
        retryFailed: occasion.task?.trigger === "person",
      }),
  };
}
