/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  setupFilesAfterEnv: ['<rootDir>/test/setup/cdktf-matchers.ts'],
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }] },
  moduleNameMapper: {
    '^kafka-retry-topology$': '<rootDir>/src/index.ts',
    '^kafka-retry-topology/runtime$': '<rootDir>/src/runtime/index.ts',
  },
};
