import { argumentsOrExit, parseCommandLine } from './parse-command-line.js';

const USAGE = 'usage: npm run migrate\n  applies pending migrations to the database configured by DATABASE_URL (or DATA_DIR) and exits';

/** `npm run migrate`: applies pending migrations to the configured database and exits. */
argumentsOrExit(() => parseCommandLine(process.argv.slice(2), {}, USAGE), USAGE);
// Loaded once the arguments are good, so that --help or a mistyped flag answers without first
// loading the database drivers, the logger and zod (about 1.3 s of CPU).
const [{ loadConfig }, { createLogger }, { openConfiguredDatabase }, { migrate }] = await Promise.all([
  import('../config.js'),
  import('../logger.js'),
  import('../db/open-configured-database.js'),
  import('../db/migrate.js'),
]);
const config = loadConfig();
const logger = createLogger({ level: config.logLevel });
const database = await openConfiguredDatabase(config, logger);
try {
  const applied = await migrate(database.db);
  logger.info({ applied, database: database.kind }, applied.length ? 'migrations applied' : 'database is up to date');
} finally {
  await database.close();
}
