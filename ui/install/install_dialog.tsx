import { useEffect, useRef, useState } from "preact/hooks";
import type {
  InstallAnswer,
  InstallCard,
  InstallProgressEvent,
  InstallSource,
} from "../../runtime/web/api/events_types.ts";
import { ApiError, messageOf, postJson } from "../api/client.ts";
import { isAbsolutePath } from "../common/absolute_path.ts";
import { Dialog } from "../common/dialog.tsx";
import type { ProjectState } from "../state/project_state.ts";
import { InstallCardView } from "./install_card_view.tsx";
import { InstallProgress, type InstallStep } from "./install_progress.tsx";
import { InstallSourceForm, type SourceInput } from "./install_source_form.tsx";
import { uploadArchive } from "./upload.ts";

/** Props of {@linkcode InstallDialog}. */
export interface InstallDialogProps {
  /** The project's live state: its folder, and the event stream's progress. */
  state: ProjectState;
  /** Closes it, having installed nothing. */
  onClose: () => void;
  /** Told what was installed; the dialog is then closed by its owner. */
  onInstalled: (answer: InstallAnswer) => void;
}

/** The card read, and what it was read from. */
interface ReadCard {
  /** The card. */
  card: InstallCard;
  /** The source to install from. */
  source: InstallSource;
  /** The path, or the name of the file uploaded. */
  from: string;
  /** Whether it was uploaded. */
  uploaded: boolean;
}

/**
 * "Install an extension": where from, then the install card, then Approve.
 * Archives chosen in the page are uploaded first. Errors keep what was
 * given, and the dialog stays open until an install succeeds or the person
 * cancels; it cannot be closed half-way through an install.
 */
export function InstallDialog(props: InstallDialogProps) {
  const { state } = props;
  const [input, setInput] = useState<SourceInput>({ path: "", file: null });
  const [read, setRead] = useState<ReadCard | null>(null);
  const [busy, setBusy] = useState<InstallStep | null>(null);
  const [stage, setStage] = useState<InstallProgressEvent["stage"] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [dragging, setDragging] = useState(false);
  const aborter = useRef<AbortController | null>(null);
  const project = state.resolved.value ?? state.project;

  useEffect(() => {
    const stop = state.listen((event) => {
      if (event.type === "install-progress") setStage(event.stage);
    });
    return () => {
      stop();
      aborter.current?.abort();
    };
  }, [state]);

  const close = () => {
    // An install under way finishes whatever the page does; it is not left half-seen.
    if (busy?.step === "installing") return;
    props.onClose();
  };

  const readCard = async (source: InstallSource, from: string, uploaded: boolean) => {
    setBusy({ step: "reading" });
    setStage(null);
    const card = await postJson<InstallCard>("/api/install/card", { project, source });
    setRead({ card, source, from, uploaded });
  };

  const showCard = async () => {
    setError(null);
    const controller = new AbortController();
    aborter.current = controller;
    try {
      if (input.file) {
        const file = input.file;
        setBusy({ step: "uploading", name: file.name, progress: { sent: 0, total: file.size } });
        const uploaded = await uploadArchive(file, {
          signal: controller.signal,
          onProgress: (progress) => setBusy({ step: "uploading", name: file.name, progress }),
        });
        await readCard({ upload: uploaded.upload }, file.name, true);
      } else {
        const path = input.path.trim();
        if (!isAbsolutePath(path)) {
          setError(
            `${JSON.stringify(path)} is not an absolute path: give the package folder's or ` +
              `archive's full path, starting with /.`,
          );
          return;
        }
        await readCard(path, path, false);
      }
    } catch (thrown) {
      if (controller.signal.aborted) return;
      const next = whatToDo(thrown, input.file !== null);
      setError(next ? `${messageOf(thrown)}\n${next}` : messageOf(thrown));
    } finally {
      if (!controller.signal.aborted) setBusy(null);
    }
  };

  const checkAgain = async () => {
    if (!read) return;
    setError(null);
    try {
      await readCard(read.source, read.from, read.uploaded);
    } catch (thrown) {
      setError(messageOf(thrown));
    } finally {
      setBusy(null);
    }
  };

  const install = async (replace: boolean) => {
    if (!read) return;
    setError(null);
    setBusy({ step: "installing" });
    setStage(null);
    try {
      const answer = await postJson<InstallAnswer>("/api/install", {
        project,
        source: read.source,
        approve: read.card.approval !== "approved",
        replace,
      });
      props.onInstalled(answer);
    } catch (thrown) {
      setError(messageOf(thrown));
      setBusy(null);
    }
  };

  const onDrop = (event: DragEvent) => {
    event.preventDefault();
    setDragging(false);
    const file = event.dataTransfer?.files[0];
    if (!file || busy || read) return;
    setInput({ path: "", file });
  };

  const progress = <InstallProgress busy={busy} stage={stage} />;
  return (
    <Dialog title="Install an extension" onClose={close} class="install-dialog">
      <div
        class={`install-body${dragging ? " dragging" : ""}`}
        onDragOver={(event) => {
          if (read || busy) return;
          event.preventDefault();
          setDragging(true);
        }}
        onDragLeave={(event) => {
          // Leaving for one of its own children is not leaving.
          const to = event.relatedTarget as Node | null;
          if (!to || !(event.currentTarget as Node).contains(to)) setDragging(false);
        }}
        onDrop={onDrop}
      >
        {read
          ? (
            <InstallCardView
              card={read.card}
              from={read.from}
              uploaded={read.uploaded}
              busy={busy !== null}
              progress={progress}
              error={error}
              onApprove={install}
              onCancel={close}
              onBack={() => {
                setRead(null);
                setError(null);
              }}
              onCheckAgain={typeof read.source === "string" ? checkAgain : undefined}
            />
          )
          : (
            <InstallSourceForm
              input={input}
              onInput={setInput}
              onSubmit={showCard}
              onCancel={close}
              busy={busy !== null}
              progress={progress}
              error={error}
            />
          )}
      </div>
    </Dialog>
  );
}

/** What to do after the card could not be read; null when the message says it. */
function whatToDo(error: unknown, uploaded: boolean): string | null {
  if (error instanceof ApiError && error.status === 413) {
    return "Choose a smaller archive, or give the package's folder by its path instead.";
  }
  if (error instanceof ApiError && error.status === 0) return null;
  return uploaded ? "Choose another archive and try again." : "Correct the path and try again.";
}
