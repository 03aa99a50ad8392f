import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The files that take longest (they install packages, start processes or drive Chromium),
 * longest first within their project, as measured on two cores. vitest orders by the durations
 * of the previous run when it has them; a fresh clone (CI) has none, and a long file started last
 * keeps one worker busy after the others have finished.
 */
const SLOWEST = [
  // shared modules
  'test/e2e/team-repository.test.ts',
  'test/e2e/production-process.test.ts',
  'test/e2e/fresh-clone.test.ts',
  'test/e2e/model-providers.test.ts',
  'test/docs/readme-snippets.test.ts',
  'test/sandbox/browser.test.ts',
  'test/integration/main-startup.test.ts',
  'test/sandbox/agents-module-browser.test.ts',
  'test/sandbox/browser-mcp.test.ts',
  'test/sandbox/browser-home.test.ts',
  'test/integration/main-policy-watch.test.ts',
  'test/sandbox/browser-edit-refund.test.ts',
  'test/sandbox/browser-batch.test.ts',
  'test/sandbox/browser-dm-refund.test.ts',
  'test/integration/mcp-tools.test.ts',
  'test/sandbox/agents-module-npm-start.test.ts',
  'test/sandbox/full-stack.test.ts',
  'test/e2e/slack-keep-alive.test.ts',
  'test/integration/migrate.test.ts',
  'test/integration/audit-cli.test.ts',
  'test/e2e/slack-convergence.test.ts',
  // isolated
  'test/e2e/agents-module.test.ts',
];

/**
 * Each project's files together, in the order vitest gives the projects, the project holding the
 * slowest file first; within a project, the files above first, in that order, then the rest as
 * vitest orders them. A worker that shares modules (isolate: false) is kept for the next file
 * only when that file is of its own project: one of another project in between makes the next
 * start a worker afresh and load the app again.
 */
export default class SlowestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (file: TestSpecification) => {
      const at = SLOWEST.indexOf(relative(file.project.config.root, file.moduleId));
      return at === -1 ? SLOWEST.length : at;
    };
    const projects = new Map<string, TestSpecification[]>();
    for (const file of await super.sort(files)) {
      const same = projects.get(file.project.name) ?? [];
      same.push(file);
      projects.set(file.project.name, same);
    }
    const groups = [...projects.values()].map((group) => group.map((file) => ({ file, rank: rank(file) })));
    const first = (group: Array<{ rank: number }>) => Math.min(...group.map((f) => f.rank));
    // Array sorts are stable: equal ranks keep vitest's order.
    return groups
      .sort((a, b) => first(a) - first(b))
      .flatMap((group) => group.sort((a, b) => a.rank - b.rank).map((f) => f.file));
  }
}
