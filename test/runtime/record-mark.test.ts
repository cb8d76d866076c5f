import { recordMark as sessionMark } from '../../src/dlq/session';
import { recordMark } from '../../src/runtime/record-mark';

describe('the mark the monitor reads a DLQ record by', () => {
  it('is the mark the DLQ sessions write in the audit entries', () => {
    const records = [
      { timestamp: '1700000000000', key: Buffer.from('order-1'), value: Buffer.from('{"id":1}') },
      { timestamp: '1700000000001', key: null, value: null },
      { timestamp: '1700000000002', key: Buffer.alloc(0), value: Buffer.from('é') },
    ];
    expect(records.map(recordMark)).toEqual(records.map(sessionMark));
  });
});
