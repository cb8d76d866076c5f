import { LogIds } from '../../src/runtime/log-ids';
import { normalTopicId } from '../../src/runtime/topic-id';

describe('a partition read under topic ids', () => {
  it('is the same log while its records name the id it was first read under', () => {
    const ids = new LogIds();
    expect(ids.seen('t', 0, 'A')).toBe('same');
    expect(ids.seen('t', 0, 'A')).toBe('same');
  });

  it('is a new log once a record names another id, and only once', () => {
    const ids = new LogIds();
    ids.seen('t', 0, 'A');
    expect(ids.seen('t', 0, 'B')).toBe('new-log');
    expect(ids.seen('t', 0, 'B')).toBe('same');
  });

  it('tells nothing from a record without an id, and keeps the id it knew', () => {
    const ids = new LogIds();
    ids.seen('t', 0, 'A');
    expect(ids.seen('t', 0, undefined)).toBe('unknown');
    expect(ids.seen('t', 0, 'A')).toBe('same');
  });

  it('does not take an id it saw replaced for a newer log (a stale answer)', () => {
    const ids = new LogIds();
    ids.seen('t', 0, 'A');
    ids.seen('t', 0, 'B');
    expect(ids.seen('t', 0, 'A')).toBe('unknown');
    expect(ids.seen('t', 1, 'A')).toBe('unknown');
    expect(ids.seen('t', 0, 'B')).toBe('same');
  });

  it('keeps partitions and topics apart', () => {
    const ids = new LogIds();
    ids.seen('t', 0, 'A');
    expect(ids.seen('t', 1, 'B')).toBe('same');
    expect(ids.seen('u', 0, 'B')).toBe('same');
  });
});

describe('a topic id as a client spells it', () => {
  const bytes = Buffer.from('00112233445566778899aabbccddeeff', 'hex');

  it('is read in Kafka spelling from hex, standard base64 and URL-safe base64 alike', () => {
    const kafka = bytes.toString('base64url');
    expect(normalTopicId('00112233-4455-6677-8899-aabbccddeeff')).toBe(kafka);
    expect(normalTopicId(bytes.toString('base64'))).toBe(kafka);
    expect(normalTopicId(kafka)).toBe(kafka);
    expect(normalTopicId({ base64: bytes.toString('base64') })).toBe(kafka);
    expect(normalTopicId({ base64str: bytes.toString('base64') })).toBe(kafka);
  });

  it('is none for the all-zero id, the topic name put in its place, or nothing at all', () => {
    expect(normalTopicId('00000000-0000-0000-0000-000000000000')).toBeUndefined();
    expect(normalTopicId('AAAAAAAAAAAAAAAAAAAAAA==')).toBeUndefined();
    expect(normalTopicId('orders.confirmed', 'orders.confirmed')).toBeUndefined();
    expect(normalTopicId('')).toBeUndefined();
    expect(normalTopicId(undefined)).toBeUndefined();
    expect(normalTopicId({})).toBeUndefined();
  });
});
