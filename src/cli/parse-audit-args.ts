import { parseCommandLine, UsageError } from './parse-command-line.js';

interface AuditArgs {
  since?: Date;
  runId?: string;
}

export const AUDIT_USAGE = [
  'usage: npm run audit -- [--since <date>] [--run <runId>]',
  '  --since  only events at or after this date (e.g. 2026-11-30 or 2026-11-30T09:00:00Z)',
  '  --run    only events of this run',
].join('\n');

/** `--since <date>` and `--run <runId>`; anything else is a UsageError, not silently ignored. */
export function parseAuditArgs(argv: string[]): AuditArgs | 'help' {
  const parsed = parseCommandLine(argv, { options: { since: { type: 'string' }, run: { type: 'string' } } }, AUDIT_USAGE);
  if (parsed === 'help') return parsed;
  const { since, run } = parsed.values;
  const args: AuditArgs = {};
  if (since !== undefined) {
    const date = new Date(since);
    if (Number.isNaN(date.getTime())) throw new UsageError(`--since: "${since}" is not a date (use e.g. 2026-11-30 or 2026-11-30T09:00:00Z)`);
    args.since = date;
  }
  if (run !== undefined) args.runId = run;
  return args;
}
