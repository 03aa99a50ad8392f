/**
 * `npm run policy -- test | explain` as a team runs it in CI, the policy and the cases in a
 * temporary folder outside this repository, named by absolute path, by a path relative to where
 * it was started, by the cases file's own `policy:`, or by POLICY_FILE. One case goes through
 * the real npm process as the README gives it (`npm --prefix <bot> run policy` from the team's
 * folder); the others run the built command (`node dist/src/cli/policy.js`, the package's
 * `slack-approval-policy`), whose behaviour they test, without npm's and tsx's start-up.
 */
import { execFile } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuiltPackage } from '../helpers/built-package.js';
import { tempDir } from '../helpers/temp-dir.js';

const ROOT = resolve(import.meta.dirname, '../..');
const team = tempDir('policy-cli-');
beforeAll(ensureBuiltPackage, 300_000);
afterAll(() => rmSync(team, { recursive: true, force: true }));

const POLICY = `version: ops
unattended: deny
defaults:
  deny: Only the tools listed in the policy may run.
tools:
  search: {}
  issue_refund:
    requireApproval: true
    approvers: [U0FIN1, U0FIN2]
    allowSelfApproval: false
    rules:
      - when: { arg: amountCents, op: gt, value: 100000 }
        then: { quorum: 2, risk: high }
      - when: { arg: currency, op: eq, value: BTC }
        then: { deny: No refunds in crypto. }
    limits:
      - { sum: amountCents, by: requester, over: 24h, above: 200000, then: { approvers: [S0CFO] } }
  deploy:
    approvers: [U0DEV]
freezes:
  - name: holidays
    from: "2026-12-20T00:00:00Z"
    to: "2027-01-05T00:00:00Z"
    tools: [deploy]
    then: { deny: Holiday change freeze. }
  - name: weekend
    every: "0 18 * * 5"
    for: 62h
    timeZone: Europe/Berlin
    tools: [deploy]
    then: { approvers: [S0SRE], quorum: 2 }
`;

const CASES = `policy: ./policy.yaml
at: "2026-07-01T10:00:00Z"
cases:
  - name: search runs
    tool: search
    requester: U0ALICE
    expect: runs
  - name: a big refund asks finance twice
    tool: issue_refund
    args: { amountCents: 150000, currency: USD }
    requester: U0ALICE
    expect: { asks: { approvers: [U0FIN2, U0FIN1], quorum: 2, risk: high, allowSelfApproval: false } }
  - name: the third refund of the day goes to the CFO
    tool: issue_refund
    args: { amountCents: 80000 }
    requester: U0ALICE
    history:
      - { args: { amountCents: 90000 }, ago: 3h }
      - { args: { amountCents: 90000 }, ago: 30h }
      - { args: { amountCents: 50000 }, ago: 1h }
      - { args: { amountCents: 90000 }, ago: 1h, requester: U0BOB }
    expect: { asks: { approvers: [S0CFO], quorum: 1 } }
  - name: crypto is denied
    tool: issue_refund
    args: { amountCents: 10, currency: BTC }
    requester: U0ALICE
    expect: { denied: No refunds in crypto. }
  - name: no deploys over the holidays
    tool: deploy
    requester: U0ALICE
    at: "2026-12-24T10:00:00Z"
    expect: { denied: Holiday change freeze. }
  - name: weekend deploys need two SREs
    tool: deploy
    requester: U0ALICE
    at: "2026-07-03T16:30:00Z"
    expect: { asks: { approvers: [S0SRE], quorum: 2 } }
  - name: an unlisted tool is denied
    tool: drop_table
    requester: U0ALICE
    expect: denied
  - name: a nightly job may not refund
    tool: issue_refund
    args: { amountCents: 100 }
    expect: denied
`;

writeFileSync(join(team, 'policy.yaml'), POLICY);
writeFileSync(join(team, 'cases.yaml'), CASES);

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

const done = (resolve: (ran: Ran) => void) => (error: Error | null, stdout: string, stderr: string) =>
  resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr });

/** The test's environment without what would choose a database, a policy or log lines, and with `env` on top. */
function environment(env: Record<string, string> = {}): NodeJS.ProcessEnv {
  return { ...process.env, DATABASE_URL: '', POLICY_FILE: '', LOG_LEVEL: 'silent', ...env };
}

/** `npm --prefix <bot> run -s policy -- …` from `cwd`, as a person types it in the team's folder. */
function npmPolicy(args: string[], cwd: string): Promise<Ran> {
  return new Promise((resolve) => {
    execFile('npm', ['--prefix', ROOT, 'run', '-s', 'policy', '--', ...args], { cwd, env: environment(), timeout: 60_000 }, done(resolve));
  });
}

/** The built command, started in `cwd` (this repository unless given): relative paths are taken from there. */
function policy(args: string[], options: { cwd?: string; env?: Record<string, string> } = {}): Promise<Ran> {
  // Not npm's INIT_CWD (set when the tests themselves run under npm): the folder it starts in decides.
  const { INIT_CWD: _, ...env } = environment(options.env);
  return new Promise((resolve) => {
    execFile(process.execPath, [join(ROOT, 'dist/src/cli/policy.js'), ...args], { cwd: options.cwd ?? ROOT, env, timeout: 60_000 }, done(resolve));
  });
}

describe('npm run policy', () => {
  it('npm --prefix <bot> run policy -- test, from the team\'s folder: every case as the bot would decide it, in a table; exit 0 when all match', async () => {
    const ran = await npmPolicy(['test', 'cases.yaml'], team);
    expect(ran.stderr).toBe('');
    expect(ran.code).toBe(0);
    expect(ran.stdout).toMatch(/^Policy ops@[0-9a-f]{16} \(.*policy\.yaml\), 8 cases/);
    const rows = ran.stdout.split('\n').filter((l) => /^(ok|FAIL) /.test(l));
    expect(rows).toHaveLength(8);
    expect(rows.every((r) => r.startsWith('ok'))).toBe(true);
    expect(ran.stdout).toContain('asks 2 of [S0SRE], freeze weekend');
    expect(ran.stdout).toContain('denied: "Holiday change freeze." (freezes[0])');
    expect(ran.stdout).toMatch(/\n8 passed, 0 failed\n$/);
  }, 90_000);

  it('test: a wrong expectation fails its row with what differs, and the run exits 1', async () => {
    writeFileSync(
      join(team, 'wrong.yaml'),
      CASES.replace('expect: { asks: { approvers: [S0SRE], quorum: 2 } }', 'expect: { asks: { approvers: [U0DEV], quorum: 1 } }').replace(
        'expect: { denied: No refunds in crypto. }',
        'expect: runs',
      ),
    );
    const ran = await policy(['test', join(team, 'wrong.yaml')]);
    expect(ran.code).toBe(1);
    expect(ran.stdout).toMatch(/FAIL +4 +crypto is denied +runs +denied: "No refunds in crypto\."/);
    expect(ran.stdout).toContain('- expected it to be runs, it is denied');
    expect(ran.stdout).toMatch(/FAIL +6 +weekend deploys need two SREs/);
    expect(ran.stdout).toContain('- approvers [S0SRE], expected [U0DEV]');
    expect(ran.stdout).toContain('- quorum 2, expected 1');
    expect(ran.stdout).toMatch(/\n6 passed, 2 failed\n$/);
  }, 90_000);

  it('finds files relative to where it was started, takes --policy over the cases file and POLICY_FILE when neither names one', async () => {
    const relative = await policy(['test', 'cases.yaml'], { cwd: team });
    expect(relative.code).toBe(0);
    writeFileSync(join(team, 'strict.yaml'), POLICY.replace('  search: {}', '  search: { deny: Searching is off today. }'));
    const overridden = await policy(['test', 'cases.yaml', '--policy', 'strict.yaml'], { cwd: team });
    expect(overridden.code).toBe(1);
    expect(overridden.stdout).toMatch(/FAIL +1 +search runs +runs +denied: "Searching is off today\."/);
    writeFileSync(join(team, 'bare-cases.yaml'), CASES.replace('policy: ./policy.yaml\n', ''));
    const fromEnv = await policy(['test', 'bare-cases.yaml'], { cwd: team, env: { POLICY_FILE: join(team, 'policy.yaml') } });
    expect(fromEnv.code).toBe(0);
    const none = await policy(['test', 'bare-cases.yaml'], { cwd: team });
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('No policy given: pass --policy <file>');
  }, 120_000);

  it('explain: every rule, limit and freeze met, the verdict and who may decide', async () => {
    const ran = await policy(['explain', '--tool', 'issue_refund', '--args', '{"amountCents":150000}', '--as', 'U0ALICE', '--policy', join(team, 'policy.yaml'), '--at', '2026-07-01T10:00:00Z']);
    expect(ran.code).toBe(0);
    expect(ran.stdout).toContain('+ tools.issue_refund: requireApproval: true, approvers: ["U0FIN1","U0FIN2"], allowSelfApproval: false');
    expect(ran.stdout).toContain('+ tools.issue_refund.rules[0]: when amountCents gt 100000 → quorum: 2, risk: "high"');
    expect(ran.stdout).toContain('- tools.issue_refund.rules[1]: when currency eq "BTC" → deny: "No refunds in crypto." (did not match)');
    expect(ran.stdout).toContain('- tools.issue_refund.limits[0]: sum of amountCents per requester over 1d above 200000: total 150000 with this call → not over');
    expect(ran.stdout).toContain('Who may decide: 2 approvals from U0FIN1, U0FIN2');
    expect(ran.stdout).toContain('The requester U0ALICE may not approve it (only withdraw it).');

    const frozen = await policy(['explain', '--tool', 'deploy', '--policy', join(team, 'policy.yaml'), '--at', '2026-12-24T10:00:00Z']);
    expect(frozen.stdout).toContain('Asked by: no person (an unattended run: unattended: deny)');
    expect(frozen.stdout).toContain('+ freezes[0] "holidays": 2026-12-20T00:00:00.000Z → 2027-01-05T00:00:00.000Z, in force until 2027-01-05T00:00:00.000Z → deny: "Holiday change freeze."');
    expect(frozen.stdout).toContain('Verdict:  denied by freezes[0]: "Holiday change freeze."');
  }, 90_000);

  it.each([
    [['explain', '--tool', 'x', '--args', '{nope'], /--args must be JSON/],
    [['explain', '--tool', 'x', '--as', 'alice'], /--as must be a Slack user id/],
    [['explain', '--tool', 'x', '--at', '2026-12-24 10:00'], /--at must be a date and time with its offset/],
    [['explain'], /explain needs --tool <name>/],
    [['test'], /test takes one cases file, got 0/],
    [['test', 'a.yaml', '--tool', 'x'], /--tool is for explain/],
    [['tset', 'a.yaml'], /unknown command "tset"/],
    [['test', 'a.yaml', '--polcy', 'p.yaml'], /Unknown option '--polcy'/],
  ])('%j exits 2 with the problem and the usage', async (args, message) => {
    const ran = await policy(args as string[]);
    expect(ran.code).toBe(2);
    expect(ran.stderr).toMatch(message);
    expect(ran.stderr).toContain('usage: npm run policy -- test <cases.yaml>');
    expect(ran.stdout).toBe('');
  }, 60_000);

  it('a cases file or policy that cannot be used exits 2 naming the file and the field', async () => {
    writeFileSync(join(team, 'bad-cases.yaml'), 'cases:\n  - name: x\n    tool: t\n    expect: maybe\n');
    const badCases = await policy(['test', join(team, 'bad-cases.yaml'), '--policy', join(team, 'policy.yaml')]);
    expect(badCases.code).toBe(2);
    expect(badCases.stderr).toContain(`${join(team, 'bad-cases.yaml')}:`);
    expect(badCases.stderr).toContain('cases.0.expect: must be runs, asks, denied');
    writeFileSync(join(team, 'bad-policy.yaml'), 'freezes:\n  - { name: f, every: "0 25 * * *", for: 1h, tools: [x], then: { quorum: 2 } }\n');
    const badPolicy = await policy(['test', join(team, 'cases.yaml'), '--policy', join(team, 'bad-policy.yaml')]);
    expect(badPolicy.code).toBe(2);
    expect(badPolicy.stderr).toContain(`Invalid policy in ${join(team, 'bad-policy.yaml')}: freezes[0].every must be a cron expression`);
    expect((await policy(['--help'])).stdout).toContain('usage: npm run policy -- test <cases.yaml> [--policy <file>]');
  }, 90_000);
});
