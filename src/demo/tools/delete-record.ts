import { z } from 'zod';
import { createTool } from '../../agent/tool.js';
import { demoDb, type AnyKysely } from '../demo-tables.js';

const deleteRecordInput = z.object({
  id: z.string().trim().min(1, 'id must not be empty').describe('The id of the record to delete'),
});

type DeleteRecordResult =
  | { deleted: true; id: string; title: string; deletedAt: string }
  | { deleted: false; id: string; reason: 'not-found'; message: string }
  | { deleted: false; id: string; reason: 'already-deleted'; deletedAt: string; message: string };

/**
 * Soft-deletes a record. `requireApproval` is set on the tool itself, not only in the
 * policy, so the call still waits for a person if someone runs it under a policy that
 * forgot the entry: a policy can add approval but never remove it.
 */
export function createDeleteRecordTool({ db }: { db: AnyKysely }) {
  const demo = demoDb(db);
  return createTool({
    id: 'delete_record',
    description: 'Delete a record by id. A person must approve each deletion before it happens.',
    inputSchema: deleteRecordInput,
    requireApproval: true,
    // A deletion cannot be undone from the chat: high-risk, so Approve asks to confirm.
    describe: ({ id }) => ({ title: `Delete record ${id}`, fields: [{ label: 'Record', value: id }], risk: 'high' }),
    execute: async ({ id }): Promise<DeleteRecordResult> => {
      // The condition on deleted_at makes the update itself the check, so two runs
      // deleting the same record cannot both report success.
      const row = await demo
        .updateTable('demo_records')
        .set({ deleted_at: new Date() })
        .where('id', '=', id)
        .where('deleted_at', 'is', null)
        .returning(['id', 'title', 'deleted_at'])
        .executeTakeFirst();
      if (row) {
        return { deleted: true, id: row.id, title: row.title, deletedAt: new Date(row.deleted_at!).toISOString() };
      }
      const existing = await demo
        .selectFrom('demo_records')
        .select(['deleted_at'])
        .where('id', '=', id)
        .executeTakeFirst();
      if (!existing) return { deleted: false, id, reason: 'not-found', message: `No record with id "${id}".` };
      const deletedAt = new Date(existing.deleted_at!).toISOString();
      return { deleted: false, id, reason: 'already-deleted', deletedAt, message: `Record "${id}" was already deleted at ${deletedAt}.` };
    },
  });
}
