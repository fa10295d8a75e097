// Prints one plain closing line, "N passed, N failed, N skipped", as the very last line of a
// run, so tools that read a run's last line (CI) count the tests without parsing jest's format.
// It goes to stderr, where jest writes its summary, and only as the process exits: jest's own
// summary reporter runs after every custom one, and "Ran all test suites" comes later still.
// Written straight to fd 2: on its way out jest stubs out process.stderr.write. Under
// test/run-suites.js, which runs jest twice and prints one line for both, the counts go to the
// file it names instead.
const { writeFileSync, writeSync } = require('node:fs');

class SummaryReporter {
  constructor(globalConfig) {
    this.watching = Boolean(globalConfig.watch || globalConfig.watchAll);
  }

  onRunComplete(_contexts, results) {
    const { numPassedTests, numFailedTests, numPendingTests, numTodoTests, numRuntimeErrorTestSuites } = results;
    // A suite that failed to load has no failed test of its own: count it as one failure.
    const failed = numFailedTests + numRuntimeErrorTestSuites;
    const counts = { passed: numPassedTests, failed, skipped: numPendingTests + numTodoTests };
    const countsFile = process.env.HOOKSTREAM_TEST_COUNTS_FILE;
    if (countsFile) return writeFileSync(countsFile, JSON.stringify(counts));
    const line = `\n${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped\n`;
    // A watching jest does not exit between runs: there the line closes each run's output.
    if (this.watching) process.stderr.write(line);
    else process.once('exit', () => writeSync(2, line));
  }
}
module.exports = SummaryReporter;
