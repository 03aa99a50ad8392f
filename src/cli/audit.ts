import { loadConfig } from '../config.js';
import { openConfiguredDatabase } from '../db/open-configured-database.js';
import { migrate } from '../db/migrate.js';
import { listAuditEvents } from '../db/audit.js';
import { formatAuditLine } from './format-audit-line.js';
import { AUDIT_USAGE, parseAuditArgs } from './parse-audit-args.js';
import { argumentsOrExit } from './parse-command-line.js';

/** `npm run audit -- --since <date>`: the audit trail as JSON lines on stdout. */
const args = argumentsOrExit(() => parseAuditArgs(process.argv.slice(2)), AUDIT_USAGE);
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
