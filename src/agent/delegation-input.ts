import { z } from 'zod';

/** What a supervisor's model passes when it delegates to a sub-agent (the tool `agent-<key>`). */
export const delegationInput = z.object({ prompt: z.string().min(1) }).strict();
