import { z } from 'zod';
import { createTool } from '../../src/agent/tool.js';

/**
 * `delete_record` needing approval, recording each execution so tests can say
 * "ran exactly once"; `onExecute` also hears of each (a child process prints it).
 */
export function recordingDeleteTool(onExecute?: (input: { id: string }) => void) {
  const deleted: unknown[] = [];
  const deleteRecord = createTool({
    id: 'delete_record',
    description: 'Delete a record',
    inputSchema: z.object({ id: z.string() }),
    requireApproval: true,
    execute: async (input: { id: string }) => {
      deleted.push(input);
      onExecute?.(input);
      return { deleted: input.id };
    },
  });
  return { deleteRecord, deleted };
}
