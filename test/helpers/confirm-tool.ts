import { z } from 'zod';
import { createTool } from '../../src/agent/tool.js';

/** `confirm`: suspends its run with a question until it is resumed with `{ ok }`, then answers 'confirmed'. */
export const confirmTool = createTool({
  id: 'confirm',
  description: 'asks for a yes',
  inputSchema: z.object({}),
  resumeSchema: z.object({ ok: z.boolean() }),
  execute: async (_input, ctx) => (ctx.agent?.resumeData ? 'confirmed' : ctx.agent?.suspend({ question: 'sure?' })),
});
