import { AUDIT_USAGE, parseAuditArgs } from './parse-audit-args.js';
import { argumentsOrExit } from './parse-command-line.js';

/** `npm run audit -- --since <date>`: the audit trail as JSON lines on stdout. */
const args = argumentsOrExit(() => parseAuditArgs(process.argv.slice(2)), AUDIT_USAGE);
// Loaded once the arguments are good, so that --help or a mistyped flag answers without first
// loading the database drivers (about 1.3 s of CPU).
const [{ loadConfig }, { openConfiguredDatabase }, { migrate }, { listAuditEvents }, { formatAuditLine }] = await Promise.all([
  import('../config.js'),
  import('../db/open-configured-database.js'),
  import('../db/migrate.js'),
  import('../db/audit.js'),
  import('./format-audit-line.js'),
]);
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
