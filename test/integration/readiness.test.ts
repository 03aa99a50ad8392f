import { afterAll, beforeAll, expect, it } from 'vitest';
import { readinessCheck } from '../../src/http/readiness.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { describeBackends } from '../helpers/needs.js';

describeBackends('GET /readyz on %s', (backend) => {
  // Read only: one migrated database serves every test.
  let migrated: TestDatabase;
  beforeAll(async () => {
    migrated = await createTestDatabase(backend);
  });
  afterAll(async () => {
    await migrated?.close();
  });

  it('is ready once every migration this code needs is applied, and not once the database cannot be reached', async () => {
    const bare = await createTestDatabase(backend, 'memory://', []);
    try {
      const notYet = await readinessCheck({ db: bare.db }).check();
      expect(notYet).toMatchObject({ ready: false, reason: 'migrations_pending' });
      expect(notYet.ready === false && notYet.detail).toMatch(/not applied: 1, 3, /);
      expect(await readinessCheck({ db: migrated.db }).check()).toEqual({ ready: true });
    } finally {
      await bare.close();
    }
    expect(await readinessCheck({ db: bare.db }).check()).toMatchObject({ ready: false, reason: 'database_unreachable' });
  });

  it('asks Slack, remembers a success for a while and a failure not at all', async () => {
    const answers = [new Error('invalid_auth'), 'ok', new Error('never asked')];
    let asked = 0;
    const readiness = readinessCheck({
      db: migrated.db,
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

  it('is not ready while draining', async () => {
    const readiness = readinessCheck({ db: migrated.db });
    readiness.markStopping();
    expect(await readiness.check()).toEqual({ ready: false, reason: 'shutting_down' });
  });
});
