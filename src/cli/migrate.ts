import { loadConfig } from '../config.js';
import { createLogger } from '../logger.js';
import { openConfiguredDatabase } from '../db/open-configured-database.js';
import { migrate } from '../db/migrate.js';
import { argumentsOrExit, parseCommandLine } from './parse-command-line.js';

const USAGE = 'usage: npm run migrate\n  applies pending migrations to the database configured by DATABASE_URL (or DATA_DIR) and exits';

/** `npm run migrate`: applies pending migrations to the configured database and exits. */
argumentsOrExit(() => parseCommandLine(process.argv.slice(2), {}, USAGE), USAGE);
const config = loadConfig();
const logger = createLogger({ level: config.logLevel });
const database = await openConfiguredDatabase(config, logger);
try {
  const applied = await migrate(database.db);
  logger.info({ applied, database: database.kind }, applied.length ? 'migrations applied' : 'database is up to date');
} finally {
  await database.close();
}
