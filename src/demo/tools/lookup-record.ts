import { z } from 'zod';
import { createTool } from '../../agent/tool.js';
import { demoDb, type AnyKysely } from '../demo-tables.js';

const lookupRecordInput = z.object({
  id: z.string().trim().min(1, 'id must not be empty').describe('The record id, e.g. "abc-123"'),
});

type LookupRecordResult =
  | {
      found: true;
      record: { id: string; title: string; owner: string; deleted: boolean; deletedAt: string | null };
    }
  | { found: false; message: string };

/** Read-only, so it never needs approval: the model can check a record before asking to change it. */
export function createLookupRecordTool({ db }: { db: AnyKysely }) {
  const demo = demoDb(db);
  return createTool({
    id: 'lookup_record',
    description:
      'Look up a record by id: its title, owner and whether it has been deleted. Use it before deleting, to confirm the right record.',
    inputSchema: lookupRecordInput,
    execute: async ({ id }): Promise<LookupRecordResult> => {
      const row = await demo
        .selectFrom('demo_records')
        .select(['id', 'title', 'owner', 'deleted_at'])
        .where('id', '=', id)
        .executeTakeFirst();
      // A result, not a thrown error: "no such record" is an answer the model should relay, not a failure.
      if (!row) return { found: false, message: `No record with id "${id}".` };
      return {
        found: true,
        record: {
          id: row.id,
          title: row.title,
          owner: row.owner,
          deleted: row.deleted_at !== null,
          deletedAt: row.deleted_at ? new Date(row.deleted_at).toISOString() : null,
        },
      };
    },
  });
}
