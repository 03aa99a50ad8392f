import type { z } from 'zod';
import type { Agent } from '../../agent/agent.js';
import { resumeSchemaFor } from '../../agent/tool.js';
import type { Request } from '../../agent/request.js';

/**
 * What an answer to a suspended call is checked against: its tool's resume schema for these
 * arguments, the tool found along the request's path; undefined when the tool is gone or asks none.
 */
export function resumeSchemaOf(agent: Agent, action: Request): z.ZodType | undefined {
  const tool = agent.toolOf(action);
  return tool ? resumeSchemaFor(tool, action.args) : undefined;
}
