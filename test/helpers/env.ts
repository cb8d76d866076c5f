/**
 * Sets an environment variable for each test of the enclosing describe block (or file),
 * to what `value` gives once the set-up registered before this call has run, and puts the
 * variable back as it was after each test.
 */
export function eachTestWithEnv(name: string, value: () => string): void {
  let before: string | undefined;
  beforeEach(() => {
    before = process.env[name];
    process.env[name] = value();
  });
  afterEach(() => {
    if (before === undefined) delete process.env[name];
    else process.env[name] = before;
  });
}
