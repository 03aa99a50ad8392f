export interface SuiteContext {
  databaseUrl: string;
  /** `--quick`: small counts, for checking the bench itself works. */
  quick: boolean;
  /** Progress lines (stderr), so stdout stays the table. */
  log(message: string): void;
}

export interface TableRow {
  metric: string;
  value: string;
  target?: string;
  reference?: string;
  /** true = meets the target, false = misses it, undefined = no target. */
  ok?: boolean;
}

export interface SuiteReport {
  rows: TableRow[];
  /** Printed under the table. */
  notes?: string[];
  /** Written to bench/results/<suite>.json. */
  json: Record<string, unknown>;
}

export interface Suite {
  name: string;
  description: string;
  /** Column title for `reference`. */
  referenceLabel?: string;
  run(ctx: SuiteContext): Promise<SuiteReport>;
}
