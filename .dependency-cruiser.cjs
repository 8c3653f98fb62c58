/** The layering of DESIGN.md "Layout": checked by `make lint` so the architecture cannot rot. */
module.exports = {
  forbidden: [
    { name: 'domain-is-pure', severity: 'error', from: { path: '^domain/' }, to: { path: '^(projections|adapters|runtime)/' } },
    { name: 'domain-no-node-builtins', severity: 'error', from: { path: '^domain/' }, to: { dependencyTypes: ['core'] } },
    { name: 'projections-below-adapters', severity: 'error', from: { path: '^projections/' }, to: { path: '^(adapters|runtime)/' } },
    { name: 'adapters-below-runtime', severity: 'error', from: { path: '^adapters/' }, to: { path: '^runtime/' } },
    { name: 'no-circular', severity: 'error', from: {}, to: { circular: true } },
  ],
  options: { tsPreCompilationDeps: true, tsConfig: { fileName: 'tsconfig.json' }, doNotFollow: { path: 'node_modules' } },
};
