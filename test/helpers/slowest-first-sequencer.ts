import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The files that take longest (they install packages or start processes), longest first, as
 * measured on two cores. vitest orders by the durations of the previous run when it has them; a
 * fresh clone (CI) has none, and a long file started last keeps one worker busy after the other
 * has finished.
 */
const SLOWEST = [
  'test/e2e/team-repository.test.ts',
  'test/e2e/production-process.test.ts',
  'test/e2e/fresh-clone.test.ts',
  'test/e2e/model-providers.test.ts',
  'test/docs/readme-snippets.test.ts',
  'test/integration/main-startup.test.ts',
  'test/e2e/agents-module.test.ts',
  'test/sandbox/browser.test.ts',
  'test/e2e/slack-convergence.test.ts',
  'test/integration/main-policy-watch.test.ts',
  'test/integration/runtime-restart.test.ts',
  'test/integration/mcp-tools.test.ts',
  'test/e2e/slack-mcp.test.ts',
  'test/integration/audit-cli.test.ts',
  'test/integration/migrate.test.ts',
];

/** The files above first, in that order; the rest as vitest orders them. */
export default class SlowestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (file: TestSpecification) => {
      const at = SLOWEST.indexOf(relative(file.project.config.root, file.moduleId));
      return at === -1 ? SLOWEST.length : at;
    };
    const rest = await super.sort(files.filter((f) => rank(f) === SLOWEST.length));
    return [...files.filter((f) => rank(f) < SLOWEST.length).sort((a, b) => rank(a) - rank(b)), ...rest];
  }
}
