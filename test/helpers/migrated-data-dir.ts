import { createHash, randomBytes } from 'node:crypto';
import { cpSync, existsSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { openDatabase } from '../../src/db/database.js';
import { migrate, readMigrations } from '../../src/db/migrate.js';

const ROOT = resolve(import.meta.dirname, '../..');

/**
 * A PGlite data directory as the bot's own start-up leaves it in an empty DATA_DIR (PGlite's
 * `initdb`, then every migration), made once per PGlite version, set of migrations and migration
 * runner, and kept in the temp folder. Made under a temporary name and renamed, so test files
 * making it at the same time never copy half of one; asked for again while it is being made in
 * this test file, the same promise.
 */
let making: Promise<string> | undefined;
function template(): Promise<string> {
  making ??= makeTemplate().catch((error: unknown) => {
    making = undefined;
    throw error;
  });
  return making;
}

async function makeTemplate(): Promise<string> {
  const { version } = JSON.parse(readFileSync(join(ROOT, 'node_modules/@electric-sql/pglite/package.json'), 'utf8')) as { version: string };
  const key = createHash('sha256')
    .update(version)
    .update(JSON.stringify(readMigrations()))
    .update(readFileSync(join(ROOT, 'src/db/migrate.ts')))
    .digest('hex')
    .slice(0, 16);
  const path = join(tmpdir(), `slack-approval-bot-data-dir-${key}`);
  if (existsSync(path)) return path;
  const partial = `${path}.${process.pid}.${randomBytes(4).toString('hex')}`;
  // As main.ts opens and migrates DATA_DIR.
  const database = await openDatabase({ dataDir: partial });
  await migrate(database.db);
  await database.close();
  try {
    renameSync(partial, path);
  } catch (error) {
    // Another test file renamed its copy first: the same content, so use that one.
    rmSync(partial, { recursive: true, force: true });
    if (!existsSync(path)) throw error;
  }
  return path;
}

/**
 * `dir`, ready to be a bot process's DATA_DIR as though an earlier start had set it up: each start
 * from an empty DATA_DIR spends most of its CPU on PGlite's `initdb` and the migrations, which only
 * the tests of a truly fresh start (fresh-clone, team-repository's README start, main-startup's
 * migrate) need to pay for. The bot still opens and checks it the way it opens any DATA_DIR.
 */
export async function migratedDataDir(dir: string): Promise<string> {
  cpSync(await template(), dir, { recursive: true });
  return dir;
}
