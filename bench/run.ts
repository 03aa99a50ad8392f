/**
 * Benchmark runner: `npm run bench` runs every suite; `npm run bench -- --only runtime`
 * (or `npm run bench runtime`) runs the named ones. Each suite prints a table and
 * writes bench/results/<suite>.json.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Suite, SuiteReport } from './lib/suite.js';
import { argumentsOrExit, parseCommandLine, UsageError } from '../src/cli/parse-command-line.js';

const suites: Record<string, () => Promise<Suite>> = {
  runtime: async () => (await import('./suites/runtime.js')).runtimeSuite,
  slack: async () => (await import('./suites/slack.js')).slackSuite,
  backlog: async () => (await import('./suites/backlog.js')).backlogSuite,
  timings: async () => (await import('./suites/timings.js')).timingsSuite,
  mastra: async () => (await import('./suites/mastra.js')).mastraSuite,
  startup: async () => (await import('./suites/startup.js')).startupSuite,
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

/** `--only a,b` (repeatable), bare suite names, `--quick`; anything else is a UsageError. */
function parseBenchArgs(argv: string[]): { names: string[]; quick: boolean } | 'help' {
  const parsed = parseCommandLine(
    argv,
    // Bare names are allowed because npm swallows `--only` unless it comes after `--`.
    { options: { only: { type: 'string', multiple: true }, quick: { type: 'boolean' } }, allowPositionals: true },
    usage(),
  );
  if (parsed === 'help') return parsed;
  const { values, positionals } = parsed;
  const chosen = [...(values.only ?? []).flatMap((v) => v.split(',')), ...positionals].map((n) => n.trim()).filter(Boolean);
  for (const name of chosen) {
    if (!suites[name]) throw new UsageError(`unknown suite "${name}"\n${usage()}`);
  }
  return { names: chosen.length ? [...new Set(chosen)] : Object.keys(suites), quick: values.quick ?? false };
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
  const { names, quick } = argumentsOrExit(() => parseBenchArgs(process.argv.slice(2)), usage());
  // Loaded once the arguments are good: --help or a mistyped suite answers without loading the
  // database drivers first.
  const { closeAllBenchDatabases, defaultDatabaseUrl } = await import('./lib/bench-db.js');
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
  console.error(error);
  await (await import('./lib/bench-db.js')).closeAllBenchDatabases();
  process.exit(1);
});
