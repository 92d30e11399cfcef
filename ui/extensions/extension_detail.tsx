import { useCallback, useEffect, useRef, useState } from "preact/hooks";
import type {
  ExtensionPageResponse,
  ReceiptLine,
  UnreadableExtension,
  UnreadableExtensionResponse,
} from "../../runtime/web/api/types.ts";
import type { StreamEvent } from "../../runtime/web/api/events_types.ts";
import { ApiError, getJson, messageOf } from "../api/client.ts";
import { Link } from "../common/link.tsx";
import { lastRemoval } from "../state/last_removal.ts";
import type { ProjectState } from "../state/project_state.ts";
import { projectPath } from "../state/route.ts";
import { ExtensionHeader } from "./extension_header.tsx";
import { HandlerSection } from "./handler_section.tsx";
import { PromptSection } from "./prompt_section.tsx";
import { ReceiptList } from "./receipt_list.tsx";
import { RemoveSection } from "./remove_section.tsx";
import { ScheduleSection } from "./schedule_section.tsx";
import { TypesSection } from "./types_section.tsx";
import { UnreadablePage } from "./unreadable_page.tsx";
import { UpdateNotice } from "./update_notice.tsx";

/** Props of {@linkcode ExtensionDetail}. */
export interface ExtensionDetailProps {
  /** The project's live state. */
  state: ProjectState;
  /** The package id. */
  id: string;
}

/** The most receipts the page holds; older ones fall off the end as new ones arrive. */
const MAX_RECEIPTS = 200;

/** What the page knows of its package. */
type Shown =
  | { kind: "loading" }
  | { kind: "page"; page: ExtensionPageResponse }
  | { kind: "gone"; message: string; removed: boolean }
  | { kind: "unreadable"; unreadable: UnreadableExtension }
  | { kind: "error"; message: string };

/**
 * An extension's page in the detail column: what it does, an update that
 * waits, what it adds, the records it publishes, what it tells an agent,
 * what it does with no screen, its receipts (live), and Remove.
 */
export function ExtensionDetail(props: ExtensionDetailProps) {
  const { state, id } = props;
  const project = state.project;
  const [shown, setShown] = useState<Shown>({ kind: "loading" });
  const [receipts, setReceipts] = useState<ReceiptLine[]>([]);
  const [arrived, setArrived] = useState<ReadonlySet<string>>(new Set());
  const [newest, setNewest] = useState<ReceiptLine | null>(null);
  const [approved, setApproved] = useState<string[] | null>(null);
  const loaded = useRef(false);
  const approvedSaid = useRef<HTMLParagraphElement>(null);
  const reading = useRef<{ busy: boolean; again: boolean }>({ busy: false, again: false });

  const read = useCallback(async () => {
    // One read at a time; facts that come during it ask for one more after it.
    if (reading.current.busy) {
      reading.current.again = true;
      return;
    }
    reading.current.busy = true;
    do {
      reading.current.again = false;
      try {
        const page = await getJson<ExtensionPageResponse>(
          `/api/extensions/${encodeURIComponent(id)}`,
          { project },
        );
        setShown({ kind: "page", page });
        mergeReceipts(page.receipts);
      } catch (thrown) {
        const unreadable = thrown instanceof ApiError && thrown.status === 404
          ? (thrown.body as Partial<UnreadableExtensionResponse> | null)?.unreadable
          : undefined;
        if (unreadable) setShown({ kind: "unreadable", unreadable });
        else if (thrown instanceof ApiError && thrown.status === 404) {
          setShown({
            kind: "gone",
            message: `${id} is not installed in this project.`,
            removed: false,
          });
        } else setShown({ kind: "error", message: messageOf(thrown) });
      }
    } while (reading.current.again);
    reading.current.busy = false;
  }, [id, project]);

  /** Takes a page's receipts without moving the ones shown: only unknown ones go on top. */
  const mergeReceipts = (fresh: ReceiptLine[]) => {
    const first = !loaded.current;
    loaded.current = true;
    setReceipts((held) => {
      if (first) return fresh;
      const known = new Set(held.map((receipt) => receipt.id));
      const added = fresh.filter((receipt) => !known.has(receipt.id));
      if (added.length === 0) return held;
      markArrived(added.map((receipt) => receipt.id));
      return [...added, ...held].slice(0, MAX_RECEIPTS);
    });
  };

  /** A receipt the page learnt of itself (Run now's): on top, once, as though it had arrived. */
  const takeReceipt = (receipt: ReceiptLine) => {
    setReceipts((held) => {
      if (held.some((known) => known.id === receipt.id)) return held;
      return [receipt, ...held].slice(0, MAX_RECEIPTS);
    });
    markArrived([receipt.id]);
  };

  const markArrived = (ids: string[]) => {
    setArrived((before) => new Set([...before, ...ids]));
  };

  useEffect(() => {
    lastRemoval.value = null;
    void read();
    return state.listen((event: StreamEvent) => {
      if (event.type === "resync") {
        void read();
        return;
      }
      if (!("packageId" in event) || event.packageId !== id) return;
      switch (event.type) {
        case "receipt": {
          const receipt: ReceiptLine = {
            ...event.receipt,
            durationMs: Math.max(
              0,
              Date.parse(event.receipt.endedAt) - Date.parse(event.receipt.startedAt),
            ),
          };
          setReceipts((held) => {
            if (held.some((known) => known.id === receipt.id)) return held;
            return [receipt, ...held].slice(0, MAX_RECEIPTS);
          });
          markArrived([receipt.id]);
          setNewest(receipt);
          break;
        }
        case "removed":
          setShown({
            kind: "gone",
            message: `${id} was removed from this project.`,
            removed: true,
          });
          break;
        case "installed":
        case "switch":
        case "handler-started":
        case "handler-ended":
          void read();
          break;
      }
    });
  }, [id, project]);

  // Approve's notice goes once the update serves; what approving did takes the focus it had.
  const saidApproved = shown.kind === "page" && approved !== null && !shown.page.update;
  useEffect(() => {
    if (!saidApproved) return;
    const focused = document.activeElement;
    if (!focused || focused === document.body) approvedSaid.current?.focus();
  }, [saidApproved]);

  if (shown.kind === "loading") return <article class="extension-page" aria-busy="true" />;
  if (shown.kind === "unreadable") {
    return (
      <UnreadablePage
        unreadable={shown.unreadable}
        lamp={state.extensions.value?.find((extension) => extension.id === id)?.lamp ?? null}
        project={project}
      />
    );
  }
  if (shown.kind === "gone") {
    return (
      <article class="extension-page">
        <div class="page-message">
          <p class="secondary">{shown.message}</p>
          <Link href={projectPath(project)}>Back to the Extensions list</Link>
        </div>
      </article>
    );
  }
  if (shown.kind === "error") {
    return (
      <article class="extension-page">
        <div class="page-message">
          <p class="error" role="alert">Cannot read this extension's page: {shown.message}</p>
          <p class="secondary">
            <button type="button" class="button" onClick={() => void read()}>Try again</button>
          </p>
        </div>
      </article>
    );
  }
  const { page } = shown;
  return (
    <article class="extension-page" aria-labelledby="page-name">
      <ExtensionHeader page={page} />
      {page.update && (
        <UpdateNotice
          id={page.id}
          project={project}
          update={page.update}
          onApproved={(lines) => {
            setApproved(lines);
            void read();
          }}
        />
      )}
      <p role="status" class="approved-said" tabIndex={-1} ref={approvedSaid}>
        {approved && !page.update ? approved.join("\n") : ""}
      </p>
      <HandlerSection page={page} project={project} onReceipt={takeReceipt} />
      {page.types.length > 0 && <TypesSection types={page.types} />}
      {page.prompt && <PromptSection prompt={page.prompt} />}
      <ScheduleSection page={page} project={project} reload={() => void read()} />
      <ReceiptList receipts={receipts} arrived={arrived} newest={newest} project={project} />
      <RemoveSection id={page.id} name={page.name} removal={page.removal} project={project} />
    </article>
  );
}
