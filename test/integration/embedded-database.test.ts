/**
 * The embedded database as the bot opens it (DATA_DIR, no DATABASE_URL): a buffer pool sized for
 * PGlite's one session rather than the 128 MB initdb writes into every data directory, which
 * PGlite would allocate and clear at each start (src/db/database.ts).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/database.js';
import { migratedDataDir } from '../helpers/migrated-data-dir.js';
import { tempDir } from '../helpers/temp-dir.js';

describe('the embedded database', () => {
  it('starts a DATA_DIR whose postgresql.conf says 128MB with a 32 MB buffer pool, and keeps its rows across a restart', async () => {
    const dir = await migratedDataDir(join(tempDir('embedded-database-'), 'data'));
    // What initdb wrote, and what a directory made by an earlier release still says.
    expect(readFileSync(join(dir, 'postgresql.conf'), 'utf8')).toMatch(/^shared_buffers = 128MB/m);
    const first = await openDatabase({ dataDir: dir });
    try {
      const { rows } = await sql<{ shared_buffers: string }>`SHOW shared_buffers`.execute(first.db);
      expect(rows).toEqual([{ shared_buffers: '32MB' }]);
      await sql`INSERT INTO slack_events (event_id) VALUES ('Ev0EMBEDDED')`.execute(first.db);
    } finally {
      await first.close();
    }
    const again = await openDatabase({ dataDir: dir });
    try {
      const { rows } = await sql<{ event_id: string }>`SELECT event_id FROM slack_events`.execute(again.db);
      expect(rows).toEqual([{ event_id: 'Ev0EMBEDDED' }]);
    } finally {
      await again.close();
    }
  });
});
