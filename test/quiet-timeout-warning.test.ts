import { quietNegativeTimeoutWarning } from '../src/cli/quiet-timeout-warning';

describe('the CLI on a Node that warns about negative timeouts (kafkajs schedules one when idle)', () => {
  const original = process.emitWarning;
  afterEach(() => {
    process.emitWarning = original;
  });

  it('drops the TimeoutNegativeWarning, however it is emitted, and passes every other warning on', () => {
    const printed: string[] = [];
    process.emitWarning = ((warning: string | Error, type?: unknown) => void printed.push(`${String(typeof type === 'string' ? type : (type as { type?: string })?.type ?? (warning as Error).name)}: ${String(warning)}`)) as typeof process.emitWarning;
    quietNegativeTimeoutWarning();
    process.emitWarning('-1796154307499 is a negative number.\nTimeout duration was set to 1.', 'TimeoutNegativeWarning');
    process.emitWarning('-5 is a negative number.', { type: 'TimeoutNegativeWarning' });
    process.emitWarning(Object.assign(new Error('-5 is a negative number.'), { name: 'TimeoutNegativeWarning' }));
    process.emitWarning('a warning of ours', 'OtherWarning');
    process.emitWarning('deprecated', { type: 'DeprecationWarning' });
    expect(printed).toEqual(['OtherWarning: a warning of ours', 'DeprecationWarning: deprecated']);
  });
});
