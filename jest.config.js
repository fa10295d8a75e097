// Three projects: `unit` (pure logic, fakes allowed, no infrastructure), `integration` (real
// Kafka and schema registry: `npm test` starts a fresh local stack around the run and passes
// KAFKA_BROKERS and SCHEMA_REGISTRY_URL), and `browser`: integration tests that also drive a real
// Chromium (test/helpers/browser.ts), apart so that its global setup installs chromium only for a
// run that has one. Integration test files end in `.int.test.ts`, browser ones in `.browser.int.test.ts`.
const transform = { '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.test.json' }] };
// Tests use the TypeScript sources of the packages' public entries; spawned services run the compiled dist/.
const moduleNameMapper = {
  '^@hookstream/(errors|runtime|kafka|partners|contract|dead-letters|service)$': '<rootDir>/packages/$1/src/index.ts',
  '^@hookstream/runtime/tracing$': '<rootDir>/packages/runtime/src/tracing/start.ts',
  '^@hookstream/cli/stack$': '<rootDir>/cli/src/stack/index.ts',
};
const roots = ['<rootDir>/packages', '<rootDir>/cli', '<rootDir>/services', '<rootDir>/test', '<rootDir>/bench'];
/**
 * Tests that run a Kafka cluster or a whole system of their own, kill part of it and time its
 * recovery. Two of them at once on two cores starve each other (a broker restart took 116 s beside
 * the replicas test, against 18 s alone) and blow their bounds, so they form a project of their own
 * that test/run-suites.js runs after the rest, one file at a time.
 */
const RUN_ALONE = [
  'test/replicas.int.test.ts',
  'test/cluster.int.test.ts',
  'test/start-supervisor.int.test.ts',
  'test/kafka-outage.int.test.ts',
  'test/failover.int.test.ts',
  'test/group-coordinator-death.int.test.ts',
  'services/ingress/test/broker-outage.int.test.ts',
];
const escaped = (file) => `/${file.replace(/[.]/g, '\\.')}$`;

/** What the integration and browser projects share. */
const integration = {
  roots,
  transform,
  moduleNameMapper,
  testEnvironment: 'node',
  slowTestThreshold: 30,
  setupFiles: ['<rootDir>/test/setup-process-warnings.js'],
};

/** @type {import('jest').Config} */
module.exports = {
  projects: [
    {
      displayName: 'unit',
      roots,
      testMatch: ['**/test/**/*.test.ts'],
      testPathIgnorePatterns: ['\\.int\\.test\\.ts$', '/node_modules/', '/dist/'],
      transform,
      moduleNameMapper,
      testEnvironment: 'node',
      // Jest runs a project's global setup only when the run includes one of its tests.
      globalSetup: '<rootDir>/test/global-setup/unit.ts',
    },
    {
      displayName: 'integration',
      testMatch: ['**/test/**/*.int.test.ts'],
      testPathIgnorePatterns: ['\\.browser\\.int\\.test\\.ts$', '/node_modules/', '/dist/', ...RUN_ALONE.map(escaped)],
      globalSetup: '<rootDir>/test/global-setup/integration.ts',
      ...integration,
    },
    {
      displayName: 'alone',
      testMatch: RUN_ALONE.map((file) => `<rootDir>/${file}`),
      globalSetup: '<rootDir>/test/global-setup/integration.ts',
      ...integration,
    },
    {
      displayName: 'browser',
      testMatch: ['**/test/**/*.browser.int.test.ts'],
      testPathIgnorePatterns: ['/node_modules/', '/dist/'],
      // Jest runs a project's global setup only when the run includes one of its tests.
      globalSetup: '<rootDir>/test/global-setup/browser.ts',
      ...integration,
    },
  ],
  // Two cores here: two workers share the one broker.
  maxWorkers: 2,
  reporters: ['default', '<rootDir>/test/summary-reporter.js'],
  // Tests close what they open; should one leak a connection, the run still ends (and CI with it).
  forceExit: true,
  // Always in worker processes, which jest kills at the end, never in its own: with one worker (the
  // `alone` run) or one test file it would run them in its own process unless this is set, and there a
  // Kafka client a test left open after its broker was killed held the process at exit for good (seen:
  // 'Force exiting Jest' printed, then no exit). 2 GB is above any test file's heap here.
  workerIdleMemoryLimit: '2GB',
  testTimeout: 60_000,
};
