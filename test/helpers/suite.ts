// node:test counts a skipped describe() as a suite, not as a skipped test, so a run that
// skips whole suites (no REDIS_URL, no TEST_DATABASE_URL) still says "# skipped 0".
// describeOrSkip takes describe's arguments; when `skip` is set it registers one skipped
// test under the suite's name instead, which the summary counts.
import { describe, test, type SuiteContext, type TestOptions } from 'node:test'

export function describeOrSkip(name: string, options: TestOptions, fn: (suite: SuiteContext) => void | Promise<void>): void {
  if (options.skip) {
    test(name, { skip: options.skip }, () => undefined)
    return
  }
  void describe(name, options, fn)
}
