import { portOption } from '../src/cli/port-option';

describe('--port of krt console and krt monitor', () => {
  it.each(['0', '80', '9835', '65535'])('takes %p', (text) => {
    expect(portOption(text)).toBe(Number(text));
  });

  it.each(['', ' ', ' 80', '80 ', '1e3', '0x50', '-1', '65536', '8080.0', 'http', '123456'])('refuses %p as a usage error, naming what it was given', (text) => {
    expect(() => portOption(text)).toThrow(expect.objectContaining({ name: 'UsageError', message: `--port takes a port number (0 picks a free one), not '${text}'` }));
  });
});
