// Prints one plain closing line, "N passed, N failed, N skipped", after jest's own summary,
// so tools that read a run's last line (CI) count the tests without parsing jest's format.
// It goes to stderr, where jest writes its summary: on one stream it comes last for sure.
class SummaryReporter {
  onRunComplete(_contexts, results) {
    const { numPassedTests, numFailedTests, numPendingTests, numTodoTests, numRuntimeErrorTestSuites } = results;
    // A suite that failed to load has no failed test of its own: count it as one failure.
    const failed = numFailedTests + numRuntimeErrorTestSuites;
    process.stderr.write(`\n${numPassedTests} passed, ${failed} failed, ${numPendingTests + numTodoTests} skipped\n`);
  }
}
module.exports = SummaryReporter;
