export interface PolicyProblem {
  /**
   * Where in the policy the problem is, e.g. `tools.issue_refund.quorum` or
   * `tools.issue_refund.rules[0].when.op`; `''` for the document as a whole.
   */
  readonly field: string;
  /** What is wrong, phrased to follow the field name. */
  readonly message: string;
}

/**
 * Raised for anything that stops a policy from being used: invalid content, an unreadable or
 * unparsable file. The bot should refuse to start on one, because guessing at an approval
 * policy would silently weaken it.
 */
export class PolicyError extends Error {
  readonly code = 'POLICY_INVALID' as const;
  /** The first problem's field; `''` when it concerns the whole document. */
  readonly field: string;
  /** Every problem found, so a broken file can be fixed in one pass. */
  readonly problems: readonly PolicyProblem[];
  /** The policy file, when the policy came from one. */
  readonly file: string | undefined;

  constructor(problems: readonly PolicyProblem[], options: { file?: string; cause?: unknown } = {}) {
    super(describe(problems, options.file), options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'PolicyError';
    this.problems = Object.freeze([...problems]);
    this.field = problems[0]?.field ?? '';
    this.file = options.file;
  }
}

function describe(problems: readonly PolicyProblem[], file: string | undefined): string {
  const where = file === undefined ? 'Invalid policy' : `Invalid policy in ${file}`;
  const lines = problems.map((p) => (p.field === '' ? p.message : `${p.field} ${p.message}`));
  if (lines.length === 0) return `${where}.`;
  if (lines.length === 1) return `${where}: ${lines[0]}`;
  return `${where}:\n${lines.map((line) => `  - ${line}`).join('\n')}`;
}
