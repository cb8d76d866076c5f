/**
 * Two projects, one run: `npm test` runs both. The unit project needs no broker and has no
 * global set-up, so `npx jest test/naming.test.ts` starts nothing; the broker project
 * (test/kafka/) starts a real Kafka broker and applies Terraform once before its suites.
 * `npx jest --selectProjects unit` runs only the suites that need no broker.
 */
/**
 * With --experimental-vm-modules (npm test's Node 24 line, for @platformatic/kafka) jest loads
 * packages of "type": "module" as ES modules itself; without it, the few ES-module-only
 * packages the tests reach are compiled to CommonJS. Compiling them under the flag would
 * hand jest CommonJS in a package it loads as an ES module ("exports is not defined").
 */
const vmModules = /--experimental-vm-modules/.test(`${process.execArgv.join(' ')} ${process.env.NODE_OPTIONS ?? ''}`);
const toCommonJs = ['ts-jest', { tsconfig: { allowJs: true, module: 'commonjs', isolatedModules: true } }];
const esModuleOnly = vmModules
  ? { transform: {}, transformIgnorePatterns: ['/node_modules/'] }
  : {
      transform: {
        // github-slugger ships only as an ES module; compile it to CommonJS for jest.
        '^.+/github-slugger/.+\\.js$': toCommonJs,
        // So is the cookie parser of fastify.inject (light-my-request), which the console's tests use.
        '^.+/light-my-request/node_modules/cookie/.+\\.js$': toCommonJs,
      },
      transformIgnorePatterns: ['/node_modules/(?!github-slugger/|light-my-request/node_modules/cookie/|cookie/dist/)'],
    };

const shared = {
  testEnvironment: 'node',
  rootDir: __dirname,
  setupFilesAfterEnv: ['<rootDir>/test/setup/cdktf-matchers.ts'],
  transform: {
    '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }],
    ...esModuleOnly.transform,
  },
  transformIgnorePatterns: esModuleOnly.transformIgnorePatterns,
  moduleNameMapper: {
    '^kafka-retry-topology$': '<rootDir>/src/index.ts',
    '^kafka-retry-topology/runtime$': '<rootDir>/src/runtime/index.ts',
    '^kafka-retry-topology/nestjs$': '<rootDir>/src/nestjs/index.ts',
    '^@kafka-retry-topology/runtime$': '<rootDir>/src/runtime/index.ts',
    '^@kafka-retry-topology/runtime/nestjs$': '<rootDir>/src/nestjs/index.ts',
  },
};

/**
 * A worker that holds this much after a suite is replaced: what one suite leaves behind
 * (module registries, timers' closures) otherwise slows every later suite of a long run.
 * Workers only: node-matrix.sh runs the unit suites on every core.
 */
const workerIdleMemoryLimit = '1GB';

/** @type {import('jest').Config} */
module.exports = {
  workerIdleMemoryLimit,
  projects: [
    {
      ...shared,
      displayName: 'unit',
      roots: ['<rootDir>/test'],
      testMatch: ['**/*.test.ts'],
      testPathIgnorePatterns: ['/node_modules/', '<rootDir>/test/kafka/'],
    },
    {
      ...shared,
      displayName: 'broker',
      roots: ['<rootDir>/test/kafka'],
      testMatch: ['**/*.test.ts'],
      // A project's global set-up runs only when one of its suites is selected.
      globalSetup: '<rootDir>/test/setup/kafka-global-setup.ts',
      globalTeardown: '<rootDir>/test/setup/kafka-global-teardown.ts',
    },
  ],
};
