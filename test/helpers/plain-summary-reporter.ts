import type { Reporter, TestCase, TestModule, TestSuite } from 'vitest/node';
import { relative } from 'node:path';

/**
 * The outermost group that says what a skipped test needs (`needing` in test/helpers/needs.ts), if
 * one does: vitest copies a group's meta to everything in it.
 */
function needingGroup(test: TestCase): TestCase | TestSuite | undefined {
  let found: TestCase | TestSuite | undefined;
  for (let at: TestCase | TestSuite | TestModule = test; at.type !== 'module'; at = at.parent) {
    if (at.meta().needs) found = at;
  }
  return found;
}

/**
 * Ends the run saying what it did not run, and why: each skipped group with what would run it
 * (grouped by that need), then one plain line, "N passed, N failed, N skipped", that CI can read
 * without knowing vitest's own summary format.
 */
export default class PlainSummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const counts = { passed: 0, failed: 0, skipped: 0 };
    /** need → "file > group" → tests skipped in it */
    const skippedFor = new Map<string, Map<string, number>>();
    for (const module of testModules) {
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') counts.passed += 1;
        else if (state === 'failed') counts.failed += 1;
        else {
          counts.skipped += 1;
          const needing = needingGroup(test);
          const need = needing?.meta().needs ?? 'nothing missing: skipped in its file (.skip, .todo or a filter)';
          const group = [relative(process.cwd(), module.moduleId), (needing ?? (test.parent.type === 'suite' ? test.parent : test)).fullName].join(' > ');
          const groups = skippedFor.get(need) ?? new Map<string, number>();
          groups.set(group, (groups.get(group) ?? 0) + 1);
          skippedFor.set(need, groups);
        }
      }
      if (module.state() === 'failed' && ![...module.children.allTests()].length) counts.failed += 1;
    }
    const lines: string[] = [];
    for (const [need, groups] of skippedFor) {
      const tests = [...groups.values()].reduce((a, b) => a + b, 0);
      lines.push(`\nNot run (${tests} tests in ${groups.size} groups), needs ${need}:`);
      for (const [group, n] of groups) lines.push(`  - ${group} (${n})`);
    }
    process.stdout.write(`${lines.join('\n')}\n${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped\n`);
  }
}
