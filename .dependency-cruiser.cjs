/**
 * The layering of docs/architecture.md "Layers and folders", for the code and for its tests: checked by
 * `make lint` so the architecture cannot rot.
 */
/** The only npm packages pure domain code may use: parsing, hashing and scheduling with no I/O. */
const domainPackages = [
  'valibot',
  'yaml',
  'croner',
  'safe-stable-stringify',
  '@noble/hashes',
  '@noble/ed25519',
  'semver',
  'ipaddr.js',
  'tr46',
  'fast-xml-parser',
];

/**
 * The floors inside adapters/, ground first (docs/architecture.md "Floors inside adapters"): a folder
 * imports only folders on a floor below its own, so no import climbs and no two folders lean on
 * each other. A new folder takes its place here before it can import or be imported.
 */
const adapterFloors = [
  [
    'shared',
    'outbound',
    'event-store',
    'db',
    'templates',
    'attachments',
    'observables',
    'presence',
    'metrics',
    'diagnostics',
    'custom-actions',
    'case-templates',
    'attack',
    'views',
    'custom-fields',
    'reports',
  ],
  ['actions', 'identity', 'live', 'kurrentdb'],
  ['exchange', 'mcp', 'chat', 'integration-packs'],
  ['detector', 'identity-service'],
  ['action-registry', 'commands', 'connections'],
  ['ai', 'effects', 'runbooks', 'webhook-sources'],
  ['http', 'tickets'],
];
const floorOf = new Map(adapterFloors.flatMap((folders, floor) => folders.map((folder) => [folder, floor])));
const adapterFolders = [...floorOf.keys()];
const adapterFloorRules = adapterFolders.map((folder) => ({
  name: `adapters-floor-${folder}`,
  comment: `adapters/${folder}/ stands on floor ${floorOf.get(folder) + 1}: it imports no adapters/ folder on its own floor or above`,
  severity: 'error',
  from: { path: `^adapters/${folder}/` },
  to: { path: `^adapters/(${adapterFolders.filter((other) => other !== folder && floorOf.get(other) >= floorOf.get(folder)).join('|')})/` },
}));

// Each vendor's own modules (a product or a product family the service talks to). A vendor's
// code imports no other vendor's: what two of them need moves down to a vendor-neutral module
// (as `configText` and `basic` did from the ticketing actions to outbound-http.ts), so dropping
// or replacing one vendor touches no other (issue 47).
const vendorModules = {
  'chat-a': ['adapters/actions/notify-chat-a\\.ts', 'adapters/chat/chat-a-signature\\.ts'],
  'chat-b': ['adapters/actions/notify-chat-b\\.ts'],
  pager: ['adapters/actions/notify-pager\\.ts', 'adapters/webhook-sources/pager-signature\\.ts'],
  ticketing: ['adapters/actions/notify-ticket\\.ts', 'adapters/tickets/', 'adapters/webhook-sources/ticket-events\\.ts'],
  'object-storage': ['adapters/connections/s3-probe\\.ts'],
  'microsoft-graph': ['adapters/connections/graph-probe\\.ts'],
  kurrentdb: ['adapters/kurrentdb/'],
};
const vendorPattern = (names) => `^(${names.flatMap((name) => vendorModules[name]).join('|')})`;
const vendorRules = Object.keys(vendorModules).map((vendor) => ({
  name: `vendor-${vendor}-imports-no-other-vendor`,
  comment: `the ${vendor} modules import no other vendor's modules: shared helpers live in vendor-neutral modules`,
  severity: 'error',
  from: { path: vendorPattern([vendor]) },
  to: { path: vendorPattern(Object.keys(vendorModules).filter((other) => other !== vendor)) },
}));

module.exports = {
  forbidden: [
    { name: 'domain-is-pure', severity: 'error', from: { path: '^domain/' }, to: { path: '^(projections|adapters|runtime|tests|bench)/' } },
    { name: 'domain-no-node-builtins', severity: 'error', from: { path: '^domain/' }, to: { dependencyTypes: ['core'] } },
    {
      name: 'domain-npm-allow-list',
      comment: `domain/ imports no npm package but ${domainPackages.join(', ')}`,
      severity: 'error',
      from: { path: '^domain/' },
      to: { dependencyTypesNot: ['local', 'core'], pathNot: `^node_modules/(${domainPackages.join('|')})/` },
    },
    { name: 'projections-below-adapters', severity: 'error', from: { path: '^projections/' }, to: { path: '^(adapters|runtime|tests|bench)/' } },
    ...adapterFloorRules,
    ...vendorRules,
    {
      name: 'adapters-folders-on-a-floor',
      comment: 'every file of adapters/ stands in a folder placed on one of adapterFloors',
      severity: 'error',
      from: { path: '^adapters/', pathNot: `^adapters/(${adapterFolders.join('|')})/` },
      to: {},
    },
    {
      name: 'adapters-imported-from-a-floor',
      comment: 'every file of adapters/ that anything imports stands in a folder placed on one of adapterFloors',
      severity: 'error',
      from: {},
      to: { path: '^adapters/', pathNot: `^adapters/(${adapterFolders.join('|')})/` },
    },
    { name: 'adapters-below-runtime', severity: 'error', from: { path: '^adapters/' }, to: { path: '^(runtime|tests|bench)/' } },
    {
      name: 'service-imports-no-dev-dependency',
      comment: 'the image installs dependencies only (npm ci --omit=dev): the service imports no devDependency',
      severity: 'error',
      from: { path: '^(domain|projections|adapters|runtime)/' },
      to: { dependencyTypes: ['npm-dev'], dependencyTypesNot: ['type-only'] },
    },
    { name: 'runtime-never-imports-tests', severity: 'error', from: { path: '^runtime/' }, to: { path: '^(tests|bench)/' } },
    {
      name: 'unit-tests-do-no-io',
      comment: 'a unit test runs pure code: no database, no event store, no service, no process',
      severity: 'error',
      from: { path: '^tests/unit/' },
      to: {
        path: '^(adapters/db/|adapters/event-store/|adapters/kurrentdb/store\\.ts|runtime/boot\\.ts|tests/support/(engines|in-process-service|service-process)\\.ts)',
      },
    },
    {
      name: 'e2e-tests-drive-processes',
      comment: 'an end-to-end test starts the real `svc` process, never the service inside the test',
      severity: 'error',
      from: { path: '^tests/e2e/' },
      to: { path: '^runtime/boot\\.ts' },
    },
    {
      name: 'console-is-a-browser-bundle',
      comment: 'the web console talks to the service over HTTP and WebSocket only: it imports no server code and no Node built-in',
      severity: 'error',
      from: { path: '^console/' },
      to: { path: '^(domain|projections|adapters|runtime|tests|bench)/' },
    },
    // The browser's code; console/ itself also holds the build's Node tools (vite.config.ts, api-types.ts).
    { name: 'console-no-node-builtins', severity: 'error', from: { path: '^console/src/' }, to: { dependencyTypes: ['core'] } },
    {
      name: 'server-never-imports-the-console',
      severity: 'error',
      from: { path: '^(domain|projections|adapters|runtime|bench)/' },
      to: { path: '^console/' },
    },
    { name: 'no-circular', severity: 'error', from: {}, to: { circular: true } },
  ],
  options: { tsPreCompilationDeps: true, tsConfig: { fileName: 'tsconfig.json' }, doNotFollow: { path: 'node_modules' } },
};
