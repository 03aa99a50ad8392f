/**
 * Benchmark runner: `npm run bench` runs every suite; `npm run bench -- --only runtime`
 * (or `npm run bench runtime`) runs the named ones. Each suite prints a table and
 * writes bench/results/<suite>.json.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { closeAllBenchDatabases, defaultDatabaseUrl } from './lib/bench-db.js';
import type { Suite, SuiteReport } from './lib/suite.js';

const suites: Record<string, () => Promise<Suite>> = {
  runtime: async () => (await import('./suites/runtime.js')).runtimeSuite,
  slack: async () => (await import('./suites/slack.js')).slackSuite,
};

const resultsDir = join(dirname(fileURLToPath(import.meta.url)), 'results');

function usage(): string {
  return [
    'usage: npm run bench [-- [--only <suite>[,<suite>…]] [--quick]]',
    '  --only   run only these suites (a bare suite name works too)',
    '  --quick  small counts: checks the bench works; numbers are not comparable',
    `suites: ${Object.keys(suites).join(', ')}`,
  ].join('\n');
}

class UsageError extends Error {}

function parseArgs(argv: string[]): { names: string[]; quick: boolean } {
  const names: string[] = [];
  let quick = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--help' || arg === '-h') {
      console.log(usage());
      process.exit(0);
    } else if (arg === '--only') {
      const value = argv[++i];
      if (!value) throw new UsageError(`--only needs a suite name\n${usage()}`);
      names.push(...value.split(','));
    } else if (arg === '--quick') {
      quick = true;
    } else if (arg.startsWith('--only=')) {
      names.push(...arg.slice('--only='.length).split(','));
    } else if (!arg.startsWith('-')) {
      // `npm run bench runtime` works too (npm swallows `--only` unless it comes after `--`).
      names.push(arg);
    } else {
      throw new UsageError(`unknown option ${arg}\n${usage()}`);
    }
  }
  const chosen = names.map((n) => n.trim()).filter(Boolean);
  for (const name of chosen) {
    if (!suites[name]) throw new UsageError(`unknown suite "${name}"\n${usage()}`);
  }
  return { names: chosen.length ? [...new Set(chosen)] : Object.keys(suites), quick };
}

function printTable(suite: Suite, report: SuiteReport): void {
  const header = ['Metric', 'Measured', 'Target', suite.referenceLabel ?? 'Reference'];
  const body = report.rows.map((r) => [
    r.metric,
    r.value,
    r.target ? `${r.target}${r.ok === undefined ? '' : r.ok ? '  ✓' : '  ✗'}` : '',
    r.reference ?? '',
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((row) => row[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  console.log(`\n${suite.name}: ${suite.description}`);
  console.log(line(header));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const row of body) console.log(line(row));
  for (const note of report.notes ?? []) console.log(note);
}

async function main(): Promise<void> {
  const { names, quick } = parseArgs(process.argv.slice(2));
  const databaseUrl = process.env.DATABASE_URL || defaultDatabaseUrl;
  process.once('SIGINT', () => {
    console.error('\ninterrupted: dropping bench schemas');
    void closeAllBenchDatabases().finally(() => process.exit(130));
  });
  mkdirSync(resultsDir, { recursive: true });
  for (const name of names) {
    const suite = await suites[name]!();
    console.error(`[${name}] starting`);
    const report = await suite.run({ databaseUrl, quick, log: (m) => console.error(`[${name}] ${m}`) });
    printTable(suite, report);
    // A quick run's numbers are not results: keep them away from the committed file.
    const file = join(resultsDir, quick ? `${name}.quick.json` : `${name}.json`);
    writeFileSync(file, `${JSON.stringify(report.json, null, 2)}\n`);
    console.log(`\nwrote ${file}`);
  }
}

main().catch(async (error: unknown) => {
  console.error(error instanceof UsageError ? error.message : error);
  await closeAllBenchDatabases();
  process.exit(1);
});
