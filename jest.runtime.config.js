/**
 * The runtime's suites alone (test/runtime/, on the in-memory broker): what `npm test`
 * runs on the Node lines other than the one it runs every suite on
 * (scripts/tools/node-matrix.sh). `npx jest --config jest.runtime.config.js` runs them on
 * the Node at hand.
 */
const all = require('./jest.config');
const unit = all.projects.find((project) => project.displayName === 'unit');

/** @type {import('jest').Config} */
module.exports = { ...unit, displayName: 'runtime', roots: ['<rootDir>/test/runtime'], workerIdleMemoryLimit: all.workerIdleMemoryLimit };
