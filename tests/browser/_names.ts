/**
 * The words the browser tests find the page's controls by: role and
 * accessible name, as a person using a screen reader would. One place, so a
 * renamed button is one line here.
 *
 * @module
 */

/** The start page. */
export const START = {
  /** The "Open a folder" section's heading. */
  openHeading: "Open a folder",
  /** The path field's label. */
  pathField: "Project folder, as an absolute path",
  /** The button that opens it. */
  openButton: "Open",
  /** The list of projects opened lately. */
  recentHeading: "Recent",
  /** The list of projects on the clock. */
  scheduledHeading: "Scheduled",
} as const;

/** A project's window. */
export const WINDOW = {
  /** The list of installed packages. */
  extensionList: "Installed extensions",
  /** The link back to the start page. */
  allProjects: "All projects",
  /** The navigator's link to the Extensions area. */
  extensionsArea: "Extensions",
} as const;

/** The install dialog and its card. */
export const INSTALL = {
  /** The button of the Extensions list that opens the dialog. */
  openButton: "Install…",
  /** The dialog's title. */
  dialog: "Install an extension",
  /** The field for a package folder's (or archive's) absolute path. */
  pathField: "Folder or archive path",
  /** The file input for an archive to upload. */
  archiveField: "Archive file",
  /** The button that reads the folder and shows the card. */
  readButton: "Show what it asks",
  /** The card's section of permissions. */
  asksHeading: "What it asks",
  /** The card's primary action. */
  approve: "Approve",
  /** The card's way out. */
  cancel: "Cancel",
} as const;

/** An extension's page. */
export const EXTENSION = {
  /** The Off | On radio group of the clock. */
  clockGroup: "Clock in this project",
  /** Its two radios. */
  off: "Off",
  on: "On",
  /** The button that opens the remove dialog. */
  removeButton: "Remove…",
  /** The remove dialog's title starts with this. */
  removeDialog: /^Remove .* from this project\?$/,
  /** The remove dialog's primary action. */
  remove: "Remove",
  /** Approves an update that waits. */
  approveUpdate: "Approve",
} as const;

/** The attribute a receipt's row carries, with the receipt's id. */
export const RECEIPT_ID_ATTRIBUTE = "data-receipt-id";

/** A package's screen in the window. */
export const SCREEN = {
  /** The navigator's list of screens. */
  navigatorList: "Screens",
  /** The link from an extension's page to its screen. */
  showIt: "Show it",
  /** What the screen's header says once its activate(ctx) ran. */
  active: /Running in a sandbox/,
} as const;

/** Chat, and a conversation in it. */
export const CHAT = {
  /** The list's button that begins a conversation. */
  newButton: "New conversation",
  /** The dialog it opens. */
  newDialog: "New conversation",
  /** The dialog's choice of agent. */
  agentField: "Agent",
  /** The dialog's field for the first turn. */
  firstTurnField: "First turn",
  /** The dialog's primary action. */
  begin: "Begin",
  /** The first group of the list: what nobody ordered. */
  conversations: "Conversations",
  /** The transcript, a log region. */
  transcript: "Transcript",
  /** A person's turn in the transcript. */
  personSaid: "You said",
  /** The demo agent's permission prompt, named by what it asks. */
  demoPermission: "Write the reply",
  /** The box for the next turn. */
  nextTurnField: "Next turn",
  /** Sends the next turn. */
  send: "Send",
  /** Cancels the turn under way. */
  cancel: "Cancel",
  /** Raises an interrupted or ended conversation again. */
  continue: "Continue",
  /** Writes the conversation as a `chat.conversation` record. */
  keep: "Keep",
  /** What the agent is doing, under the running turn: a region. */
  activity: "What the agent is doing",
  /** Its disclosure of the agent's stderr tail. */
  agentOutput: "Agent output",
  /** The ways an agent lists to sign in, while a conversation waits for one. */
  signInWays: "Sign in to",
  /** A way's button that saves its key into the agent's definition and continues. */
  saveKey: "Save in the agent's definition and continue",
  /** A failure in the transcript. */
  failure: "Failure",
  /** A message not sent yet, waiting for the agent's session. */
  notSentYet: "Not sent yet",
} as const;

/** The Records area. */
export const RECORDS = {
  /** The navigator's link to it. */
  area: "Records",
  /** The search box's label. */
  search: "Search records",
  /** The kind chooser's label. */
  kind: "Kind",
  /** The detail column. */
  detail: "Record",
  /** What it says while the project has no records. */
  empty: "No records yet — records appear when an extension writes them.",
} as const;

/** Run now, on a handler's row of an extension's page. */
export const RUN = {
  /** Runs a handler that declares no payload, at once. */
  runNow: "Run now",
  /** Opens the payload editor of a handler that declares its payload. */
  runNowWithPayload: "Run now…",
  /** Opens the payload editor of a handler that declares none. */
  withPayload: "With a payload…",
  /** Runs with the payload typed, once the editor is open: "Run <handler>". */
  run: (handler: string) => `Run ${handler}`,
  /** The payload field: "Payload for <handler>, as JSON". */
  payloadField: (handler: string) => `Payload for ${handler}, as JSON`,
  /** Stops a run under way. */
  stop: "Stop",
  /** The link from a run's result to its receipt. */
  seeReceipt: "See its receipt",
  /** The receipt's disclosure of its console lines starts with this. */
  console: /^Console, \d+ lines?$/,
  /** The link from a receipt to the conversation its call began. */
  conversation: "The conversation it began",
  /** The link in a conversation's header to the record it is about starts with this. */
  aboutRecord: /^About the record /,
} as const;

/** What a first run offers: the folder browser, the bundled examples, the empty lists' buttons. */
export const FIRST_RUN = {
  /** The start page's empty list's button, which shows the folder browser. */
  chooseProject: "Choose a project folder…",
  /** The start page's folder browser. */
  projectBrowser: "Choose a project folder",
  /** The install dialog's folder browser. */
  packageBrowser: "Choose a package folder",
  /** The button beside a path field that shows the folder browser. */
  browse: "Browse…",
  /** The folder browser's button that takes the folder shown, on the start page. */
  openThis: "Open this folder",
  /** The folder browser's button that takes the folder shown, in the install dialog. */
  useThis: "Use this folder",
  /** The folder browser's way one up. */
  up: "Up",
  /** The folder browser's choice of hidden folders. */
  hidden: "Show hidden folders",
  /** The folder browser's list of subfolders starts with this. */
  folders: /^Folders in /,
  /** The install dialog's list of bundled examples. */
  examples: "Bundled with Sync",
  /** The empty Extensions list's button. */
  install: "Install an extension…",
  /** The empty Chat list's button. */
  begin: "Begin a conversation…",
} as const;

/** What the window says over any page: Sync not answering, and background failures. */
export const NOTICES = {
  /** The word that Sync does not answer. */
  lost: "Sync is not answering",
  /** The word that it answers again. */
  back: "Reconnected",
  /** The corner's region of notices. */
  region: "Notices",
  /** A notice's button that dismisses it (its name goes on with the notice's title). */
  dismiss: /^Dismiss: /,
  /** The navigator's link to Chat. */
  chatArea: "Chat",
  /** The button that dismisses a notice of what the person just did. */
  dismissDone: "Dismiss",
} as const;

/** Finding and moving: the lists' filters and the window's shortcuts. */
export const FIND = {
  /** The Extensions list's filter field. */
  extensionFilter: "Filter extensions",
  /** Chat's list's filter field. */
  chatFilter: "Filter conversations",
  /** Empties a filter that matched nothing. */
  clear: "Clear",
  /** The dialog `?` opens, and the navigator's button that opens it. */
  shortcuts: "Keyboard shortcuts",
  /** The command palette Ctrl+K opens. */
  palette: "Go to or do",
  /** Its field. */
  paletteField: "Find a place, an extension, a conversation or an action",
} as const;

/** The Devices area of a project's window. */
export const DEVICES = {
  /** The navigator's link to it. */
  area: "Devices",
  /** The list of the project's devices. */
  list: "Devices in this project",
  /** What the list says with no device. */
  empty: "No device in this project. Install an applet such as Mail or Calendar.",
  /** The empty list's button. */
  install: "Install an applet…",
  /** The button that opens the connect form. */
  connect: "Connect…",
  /** The folder browser of the connect form, for a device named `name`. */
  browser: (name: string) => `Choose the folder ${name} reads`,
  /** The folder browser's button that connects the folder shown. */
  connectFolder: "Connect this folder",
  /** The list of folders in the browser. */
  folders: /^Folders in /,
  /** The remote account's fields. */
  originField: "Address of the server, such as https://mail.example.com",
  credentialField: "Password or token",
  /** Reads now, for a device that reads on demand. */
  readNow: "Read now",
  pause: "Pause",
  resume: "Resume",
  disconnect: "Disconnect",
  reset: "Reset…",
  /** The reset dialog's title, for a device named `name`. */
  resetDialog: (name: string) => `Reset ${name}?`,
  /** The reset dialog's primary action. */
  resetConfirm: "Reset",
  /** The red notice's buttons. */
  allowAccess: "Allow access",
  signIn: "Sign in again",
  review: "Review the run",
  /** The panel of a run to review, and its button. */
  reviewPanel: "The run that failed",
  markReviewed: "Mark reviewed",
  /** The consent's radio group. */
  consent: "Processing what it reads",
  /** The field of where the consent lets the content go. */
  endpointField: "Where it may be processed: an endpoint, such as http://127.0.0.1:11434",
} as const;
