/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  setupFilesAfterEnv: ['<rootDir>/test/setup/cdktf-matchers.ts'],
  globalSetup: '<rootDir>/test/setup/kafka-global-setup.ts',
  globalTeardown: '<rootDir>/test/setup/kafka-global-teardown.ts',
  transform: {
    '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }],
    // github-slugger ships only as an ES module; compile it to CommonJS for jest.
    '^.+/github-slugger/.+\\.js$': ['ts-jest', { tsconfig: { allowJs: true, module: 'commonjs', isolatedModules: true } }],
  },
  transformIgnorePatterns: ['/node_modules/(?!github-slugger/)'],
  moduleNameMapper: {
    '^kafka-retry-topology$': '<rootDir>/src/index.ts',
    '^kafka-retry-topology/runtime$': '<rootDir>/src/runtime/index.ts',
  },
};
