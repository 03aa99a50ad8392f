import { afterEach, describe, expect, it } from 'vitest';
import { readinessCheck } from '../../src/http/readiness.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { describeBackends } from '../helpers/needs.js';

describeBackends('GET /readyz on %s', (backend) => {
  const opened: TestDatabase[] = [];
  afterEach(async () => {
    for (const db of opened.splice(0)) await db.close().catch(() => undefined);
  });
  const database = async (migrated: boolean) => {
    const db = await createTestDatabase(backend, 'memory://', migrated ? undefined : []);
    opened.push(db);
    return db;
  };

  it('is ready once every migration this code needs is applied', async () => {
    const bare = await database(false);
    const notYet = await readinessCheck({ db: bare.db }).check();
    expect(notYet).toMatchObject({ ready: false, reason: 'migrations_pending' });
    expect(notYet.ready === false && notYet.detail).toMatch(/not applied: 1, 3, /);
    const migrated = await database(true);
    expect(await readinessCheck({ db: migrated.db }).check()).toEqual({ ready: true });
  });

  it('asks Slack, remembers a success for a while and a failure not at all', async () => {
    const { db } = await database(true);
    const answers = [new Error('invalid_auth'), 'ok', new Error('never asked')];
    let asked = 0;
    const readiness = readinessCheck({
      db,
      slackAuth: async () => {
        const answer = answers[asked++];
        if (answer instanceof Error) throw answer;
      },
    });
    expect(await readiness.check()).toEqual({ ready: false, reason: 'slack_auth_failed', detail: 'invalid_auth' });
    expect(await readiness.check()).toEqual({ ready: true });
    expect(await readiness.check()).toEqual({ ready: true });
    expect(asked).toBe(2);
  });

  it('is not ready while draining, nor when the database cannot be reached', async () => {
    const { db } = await database(true);
    const readiness = readinessCheck({ db });
    readiness.markStopping();
    expect(await readiness.check()).toEqual({ ready: false, reason: 'shutting_down' });
    const gone = await database(true);
    const unreachable = readinessCheck({ db: gone.db });
    await gone.close();
    expect(await unreachable.check()).toMatchObject({ ready: false, reason: 'database_unreachable' });
  });
});
