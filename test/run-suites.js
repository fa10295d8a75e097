// `npm test`'s run (inside the local stack it starts): every project but `alone` with the usual
// workers, then the `alone` project's files one at a time (jest.config.js says why), each run
// whatever the other's outcome. It ends with one line counting both, as test/summary-reporter.js
// does for a single run, and fails when either did. Arguments given (`npm test -- <paths>`) make
// one ordinary jest run of them instead.
const { spawnSync } = require('node:child_process');
const { mkdtempSync, readFileSync, rmSync, writeFileSync } = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const jest = (args, env = process.env) =>
  spawnSync(
    process.execPath,
    [
      '--experimental-vm-modules',
      '--disable-warning=ExperimentalWarning',
      path.join(__dirname, '../node_modules/jest/bin/jest.js'),
      ...args,
    ],
    { stdio: 'inherit', env },
  ).status ?? 1;

const given = process.argv.slice(2);
if (given.length > 0) process.exit(jest(given));

const countsDir = mkdtempSync(path.join(os.tmpdir(), 'hookstream-test-counts-'));
const counted = (name) => ({ ...process.env, HOOKSTREAM_TEST_COUNTS_FILE: path.join(countsDir, `${name}.json`) });
const codes = [
  jest(['--selectProjects', 'unit', 'integration', 'browser'], counted('together')),
  jest(['--selectProjects', 'alone', '--maxWorkers', '1'], counted('alone')),
];
const totals = { passed: 0, failed: 0, skipped: 0 };
for (const name of ['together', 'alone']) {
  let counts;
  try {
    counts = JSON.parse(readFileSync(path.join(countsDir, `${name}.json`), 'utf8'));
  } catch {
    counts = { passed: 0, failed: 1, skipped: 0 }; // the run ended before counting: one failure
  }
  for (const key of Object.keys(totals)) totals[key] += counts[key];
}
rmSync(countsDir, { recursive: true, force: true });
process.stderr.write(`\n${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped\n`);
process.exit(codes.some((code) => code !== 0) ? 1 : 0);
