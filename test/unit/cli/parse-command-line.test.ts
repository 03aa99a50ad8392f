import { describe, expect, it } from 'vitest';
import { parseAuditArgs } from '../../../src/cli/parse-audit-args.js';
import { parseCommandLine, UsageError } from '../../../src/cli/parse-command-line.js';

const config = { options: { since: { type: 'string' }, quick: { type: 'boolean' } } } as const;

describe('parseCommandLine', () => {
  it('parses the flags it is given', () => {
    expect(parseCommandLine(['--since', 'x', '--quick'], config, 'usage: t')).toMatchObject({ values: { since: 'x', quick: true } });
    expect(parseCommandLine(['--since=--odd'], config, 'usage: t')).toMatchObject({ values: { since: '--odd' } });
  });

  it('answers --help and -h before looking at anything else', () => {
    expect(parseCommandLine(['--help'], config, 'usage: t')).toBe('help');
    expect(parseCommandLine(['--bogus', '-h'], config, 'usage: t')).toBe('help');
  });

  it.each([
    [['--sinse', 'x'], /Unknown option '--sinse'/],
    [['--since'], /'--since <value>' argument missing/],
    [['--since', '--quick'], /argument is ambiguous/],
    [['--quick=yes'], /'--quick' does not take an argument/],
    [['stray'], /Unexpected argument 'stray'/],
  ])('refuses %j with a UsageError that ends with the usage', (argv, message) => {
    let error: unknown;
    try {
      parseCommandLine(argv, config, 'usage: t [--since <x>]');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).message).toMatch(message);
    expect((error as UsageError).message).toMatch(/\nusage: t \[--since <x>\]$/);
  });
});

describe('parseAuditArgs', () => {
  it('reads --since as a date and --run as a run id', () => {
    expect(parseAuditArgs(['--since', '2026-11-30', '--run', 'r1'])).toEqual({ since: new Date('2026-11-30'), runId: 'r1' });
    expect(parseAuditArgs([])).toEqual({});
  });

  it('refuses a --since that is not a date', () => {
    expect(() => parseAuditArgs(['--since', 'yesterday-ish'])).toThrow(/--since: "yesterday-ish" is not a date/);
  });
});
