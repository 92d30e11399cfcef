/**
 * Agents: the programs that perform `agent.session` work, spoken to over the
 * Agent Client Protocol (ACP) on their stdio. A session initializes, makes or
 * loads the agent's session in the project folder, and runs turns whose
 * updates become transcript entries; the bundled demo agent
 * (`demo/demo_agent.ts`) needs no key and no network.
 *
 * The agents a person can use are named definitions over the presets
 * (`agent_definitions.ts`). The {@linkcode WorkPerformer} takes orders from
 * the projects' outboxes and a person's conversations, and keeps each
 * session's pointer and bounded transcript in the installation
 * (`session_store.ts`, `transcript_store.ts`); a kept conversation becomes a
 * `chat.conversation` record (`keep_conversation.ts`).
 *
 * This file is the domain's public entry: other domains import from it, never
 * from the files behind it.
 *
 * @module
 */
export { AcpSession, startAcpSession } from "./acp_session.ts";
export type {
  AcpSessionOptions,
  AgentFacts,
  AskPermission,
  McpServer,
  PermissionAnswer,
  PermissionRequest,
} from "./acp_session.ts";
export {
  addAgent,
  listAgents,
  parseAgentDefinition,
  readAgent,
  removeAgent,
  setAgentEnv,
} from "./agent_definitions.ts";
export type { AgentDefinition, AgentRemoval, ListedAgent } from "./agent_definitions.ts";
export { AgentFailedError, AgentSignInRequiredError } from "./agent_errors.ts";
export type { AgentAuthEnvVar, AgentAuthMethod, AgentFailure } from "./agent_errors.ts";
export { signInText, signInWays } from "./sign_in_ways.ts";
export type { SignInWaysOptions } from "./sign_in_ways.ts";
export { AGENT_LIMITS } from "./agent_limits.ts";
export { ActivityTracker, cleanTail, watchedPeer } from "./activity_tracker.ts";
export type { ActivityTrackerOptions } from "./activity_tracker.ts";
export { npmFetchLine, npmRunner, withFetchLog } from "./npm_fetch.ts";
export type { NpmFetchLine, NpmRunner } from "./npm_fetch.ts";
export { quietDeadline } from "./quiet_deadline.ts";
export type { QuietDeadline, QuietDeadlineOptions, SignsOfLife } from "./quiet_deadline.ts";
export type { AgentExit, AgentPeer } from "./agent_peer.ts";
export { demoAgentCommand } from "./demo_agent_command.ts";
export { spawnAgent } from "./spawn_agent.ts";
export type { AgentCommand, SpawnAgentOptions } from "./spawn_agent.ts";
export { appendEntry } from "./transcript.ts";
export { describeSource, orderPrompt } from "./order_prompt.ts";
export { begunBy } from "./begun_by.ts";
export type { BegunByOptions } from "./begun_by.ts";
export { conversationKey, keepConversation, writeConversation } from "./keep_conversation.ts";
export type { ConversationKept } from "./keep_conversation.ts";
export {
  createSession,
  listSessions,
  readSession,
  readSessionState,
  updateSession,
} from "./session_store.ts";
export { agentReadiness } from "./agent_readiness.ts";
export type { AgentReadiness, AgentReadinessOptions } from "./agent_readiness.ts";
export { archiveSession, checkStopped, deleteSession } from "./session_removal.ts";
export { readTranscript, TranscriptWriter } from "./transcript_store.ts";
export type { StoredTranscript, TranscriptWriterOptions } from "./transcript_store.ts";
export { transcriptText } from "./transcript_text.ts";
export { WorkPerformer } from "./work_performer.ts";
export { supervisedLauncher, supervisedPeer } from "./supervised_agent.ts";
export type { SessionView, WorkPerformerOptions } from "./work_performer.ts";
export type { AgentLauncher, McpOffer, McpServersFor } from "./agent_launcher.ts";
export type {
  EntryBase,
  FailureEntry,
  MessageEntry,
  PermissionAnswerEntry,
  PermissionChoice,
  PermissionEntry,
  PlanEntry,
  PlanStep,
  StoppedEntry,
  StopReason,
  ThoughtEntry,
  ToolCallEntry,
  ToolCallStatus,
  ToolCallUpdateEntry,
  TranscriptEntry,
  TurnEndEntry,
  UserEntry,
} from "../transcript.ts";
