import type { Config } from '../config.js';
import type { Logger } from '../logger.js';
import { openDatabase, type Database } from './database.js';

/** The database the configuration names: Postgres when DATABASE_URL is set, embedded PGlite otherwise. */
export function openConfiguredDatabase(config: Config, logger?: Logger): Promise<Database> {
  return config.databaseUrl
    ? openDatabase({ databaseUrl: config.databaseUrl, preparedStatements: config.databasePreparedStatements, ...(logger ? { logger } : {}) })
    : openDatabase({ dataDir: config.dataDir });
}
