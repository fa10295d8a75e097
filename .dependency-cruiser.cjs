// The house's rules, run by `npm run lint` (and so by CI): no import cycles, and no import of
// another package's internals. A package (packages/*, services/*, cli, bench, test) uses another
// only through its public entry (`@hookstream/<name>`, resolved to its src/index.ts, and
// `@hookstream/runtime/tracing`, a service's first import: packages/runtime/src/tracing/start.ts).
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-cycles',
      comment: 'Files import each other in a circle: one of them holds what the other needs; move it.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'no-other-package-internals',
      comment: "Import another package's public entry (@hookstream/<name>), never a file inside it.",
      severity: 'error',
      from: { path: '^(packages|services)/([^/]+)/' },
      to: {
        path: '^packages/([^/]+)/src/',
        pathNot: ['^packages/[^/]+/src/index\\.ts$', '^packages/runtime/src/tracing/start\\.ts$', '^$1/$2/'],
      },
    },
    {
      name: 'no-service-internals-from-outside',
      comment: "A service's sources are its own: share code through a package.",
      severity: 'error',
      from: { pathNot: '^services/([^/]+)/' },
      to: { path: '^services/[^/]+/(src|console)/' },
    },
    {
      name: 'no-service-to-service',
      comment: "A service's sources are its own: share code through a package.",
      severity: 'error',
      from: { path: '^services/([^/]+)/' },
      to: { path: '^services/[^/]+/', pathNot: '^services/$1/' },
    },
    {
      name: 'domain-uses-no-adapter',
      comment:
        "A service's domain holds its use cases and rules: it declares what it needs of an adapter (an interface) and is handed it; it imports neither adapters/ nor entry/.",
      severity: 'error',
      from: { path: '^services/([^/]+)/src/domain/' },
      to: { path: '^services/$1/src/(adapters|entry)/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'no-cli-internals',
      comment: "Import the CLI's public entry (@hookstream/cli/stack), not its sources.",
      severity: 'error',
      from: { pathNot: '^cli/' },
      to: { path: '^cli/src/', pathNot: '^cli/src/stack/index\\.ts$' },
    },
    {
      name: 'no-bench-internals',
      comment: 'The benches are run, not imported.',
      severity: 'error',
      from: { pathNot: '^bench/' },
      to: { path: '^bench/src/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(dist|node_modules)/' },
    tsConfig: { fileName: 'tsconfig.test.json' },
    tsPreCompilationDeps: true,
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'] },
  },
};
