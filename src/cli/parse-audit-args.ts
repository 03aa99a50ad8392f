export interface AuditArgs {
  since?: Date;
  runId?: string;
}

export class UsageError extends Error {}

/** `--since <date>` and `--run <runId>`; anything else is a usage error, not silently ignored. */
export function parseAuditArgs(argv: string[]): AuditArgs {
  const args: AuditArgs = {};
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    const value = argv[i + 1];
    if (flag === '--since' || flag === '--run') {
      if (value === undefined || value.startsWith('--')) throw new UsageError(`${flag} needs a value`);
      i += 1;
      if (flag === '--since') {
        const date = new Date(value);
        if (Number.isNaN(date.getTime())) throw new UsageError(`--since: "${value}" is not a date (use e.g. 2026-11-30 or 2026-11-30T09:00:00Z)`);
        args.since = date;
      } else {
        args.runId = value;
      }
    } else {
      throw new UsageError(`unknown argument "${flag}" (usage: npm run audit -- [--since <date>] [--run <runId>])`);
    }
  }
  return args;
}
