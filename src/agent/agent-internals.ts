import type { LanguageModelV3, LanguageModelV3FunctionTool } from '@ai-sdk/provider';
import type { Tool } from './tool.js';
import type { RequireToolApproval } from './requires-approval.js';
import type { MemoryOptions } from './memory.js';
import type { BeforeToolCallHook } from './before-tool-call.js';

export type { BeforeToolCallContext, BeforeToolCallHook } from './before-tool-call.js';

/** What the step loop needs from an agent, whatever class provides it. */
export interface AgentInternals {
  readonly id: string;
  readonly instructions: string;
  readonly model: LanguageModelV3;
  readonly tools: Readonly<Record<string, Tool>>;
  /** Sub-agents by the tool name the model sees (`agent-<key>`). */
  readonly subAgents: Readonly<Record<string, AgentInternals>>;
  readonly toolSpecs: LanguageModelV3FunctionTool[];
  readonly memory?: MemoryOptions;
  readonly defaultOptions: {
    maxSteps?: number;
    requireToolApproval?: RequireToolApproval;
    autoResumeSuspendedTools?: boolean;
  };
  readonly hooks: { beforeToolCall?: BeforeToolCallHook };
}
