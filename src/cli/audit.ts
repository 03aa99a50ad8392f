import { loadConfig } from '../config.js';
import { openConfiguredDatabase } from '../db/open-configured-database.js';
import { migrate } from '../db/migrate.js';
import { listAuditEvents } from '../db/audit.js';
import { formatAuditLine } from './format-audit-line.js';
import { parseAuditArgs, UsageError } from './parse-audit-args.js';

/** `npm run audit -- --since <date>`: the audit trail as JSON lines on stdout. */
let args;
try {
  args = parseAuditArgs(process.argv.slice(2));
} catch (error) {
  if (error instanceof UsageError) {
    console.error(error.message);
    process.exit(2);
  }
  throw error;
}
const database = await openConfiguredDatabase(loadConfig());
try {
  await migrate(database.db);
  const events = await listAuditEvents(database.db, {
    ...(args.since ? { since: args.since } : {}),
    ...(args.runId ? { runId: args.runId } : {}),
  });
  for (const event of events) process.stdout.write(formatAuditLine(event) + '\n');
} finally {
  await database.close();
}
