import fc from 'fast-check';
import { committedOffsetOf, DEFAULT_PARK_STATE_BUDGET, LEGACY_PARK_STATE_FORMAT, PARK_STATE_FORMAT, RETRY_ID_PATTERN, decodeParkState, emptyParkState, encodeParkState, keyHash, markRanUnjudged, parkStateMetadata, readParkState, releaseHold, retryIdOfReplay, takeHold, writtenUnderAnotherState } from '../../src/runtime/park-state';
import type { ParkState } from '../../src/runtime/park-state';

const ID = () => 'AbC-_123';

describe('the park-by-key state in commit metadata', () => {
  const a = keyHash(Buffer.from('order-42'));
  const b = keyHash(Buffer.from('order-43'));

  it('hashes any key to 12 URL-safe characters, the same every time, a null key like an empty one', () => {
    expect(a).toMatch(/^[A-Za-z0-9_-]{12}$/);
    expect(keyHash(Buffer.from('order-42'))).toBe(a);
    expect(keyHash(Buffer.from('x'.repeat(10_000)))).toHaveLength(12);
    expect(keyHash(null)).toBe(keyHash(Buffer.alloc(0)));
    expect(b).not.toBe(a);
  });

  it('commits at the oldest parked record and reads back what it wrote: held keys, parked offsets, keys released but not yet re-read', () => {
    const state = emptyParkState(1_000_000n);
    state.held.set(a, 999_990n);
    state.parked.set(999_995n, a);
    state.parked.set(999_991n, a);
    state.parked.set(999_000n, b); // b released, its parked record not re-read yet
    expect(committedOffsetOf(state)).toBe(999_000n);
    const text = encodeParkState(state);
    expect(text).toBe(`krt-parked/2 +rs ${[`${a}@a:9,5`, `${b}:rs`].sort().join(' ')} .`);
    expect(decodeParkState(999_000n, text)).toEqual(state);
    expect(decodeParkState(999_000n, `${text}\0`)).toEqual(state); // as the Confluent client writes it
    expect(decodeParkState(999_000n, `${text}\0\0\0`)).toEqual(state); // and padded with NULs
  });

  it('writes its commit metadata with a NUL at the end, so a reader that stops only at a NUL (the Confluent client\'s admin) reads exactly the state', () => {
    const state = emptyParkState(3n);
    state.held.set(a, 0n);
    state.parked.set(1n, a);
    const metadata = parkStateMetadata(state);
    expect(metadata).toBe(`${encodeParkState(state)}\0`);
    expect(decodeParkState(1n, metadata)).toEqual(state);
    // Without the NUL, that reader returned the bytes after it too: never a state to trust.
    expect(decodeParkState(1n, `${encodeParkState(state)}0`)).toEqual(emptyParkState(1n));
  });

  it('commits at the position when nothing is parked', () => {
    const state = emptyParkState(42n);
    state.held.set(a, 40n);
    expect(committedOffsetOf(state)).toBe(42n);
    expect(decodeParkState(42n, encodeParkState(state))).toEqual(state);
  });

  it('reads an empty state from no metadata, from metadata that is not its own, and from garbage', () => {
    for (const metadata of [null, undefined, '', 'krt-handled/1 {}', 'krt-parked/1', `krt-parked/1 ${a}@1`, 'krt-parked/1 +0 not-a-hash@1', `krt-parked/1 +0 ${a}@-1`, `krt-parked/1 +0 ${a}:1,,2`]) {
      expect(decodeParkState(10n, metadata)).toEqual(emptyParkState(10n));
    }
  });

  it('fits about a hundred keys, each with a parked record, into the default budget', () => {
    const state = emptyParkState(50_000_000n);
    for (let i = 0; i < 100; i++) {
      const hash = keyHash(Buffer.from(`order-${i}`));
      state.held.set(hash, 49_999_000n + BigInt(i));
      state.parked.set(49_999_500n + BigInt(i), hash);
    }
    expect(encodeParkState(state).length).toBeLessThan(DEFAULT_PARK_STATE_BUDGET);
  });

  it('reads only what the encoder writes: any other text, close to a state or not, is an empty state (a truncated state, holds or parked records at the position, a wrong distance)', () => {
    for (const metadata of ['krt-parked/1 +5', `krt-parked/1 +0 ${a}@0`, `krt-parked/1 +2 ${a}:0`, `krt-parked/1 +3 ${a}:1`, `krt-parked/1 +2 ${a}:2,2`, `krt-parked/1 +02 ${a}:2`, `krt-parked/1 +0 ${b}@1 ${a}@1`]) {
      expect(decodeParkState(10n, metadata)).toEqual(emptyParkState(10n));
    }
  });

  it('reads a commit without state as lost, marked at the committed offset, with a new id, and says why; a partition never committed as begun from nothing', () => {
    expect(readParkState(undefined, null, ID)).toEqual({ state: { ...emptyParkState(0n), id: 'AbC-_123' } });
    expect(readParkState(undefined, null).state.id).toMatch(/^[A-Za-z0-9_-]{8}$/);
    for (const metadata of [null, undefined, '', '\0']) expect(readParkState(10n, metadata, ID)).toEqual({ state: { ...emptyParkState(10n), lostBefore: 10n, id: 'AbC-_123' }, lost: 'none' });
    for (const metadata of ['krt-parked/1 +5', `krt-parked/1 +0 ${a}@1\0\0x`, 'krt-handled/1 {}']) {
      expect(readParkState(10n, metadata, ID)).toEqual({ state: { ...emptyParkState(10n), lostBefore: 10n, id: 'AbC-_123' }, lost: 'unreadable' });
    }
    const state = emptyParkState(12n);
    state.held.set(a, 3n);
    expect(readParkState(12n, parkStateMetadata(state), ID)).toEqual({ state });
  });

  it('keeps the mark of a lost state (~, below the position, 0 included) and reads it back; states without it read as before', () => {
    const state: ParkState = { ...emptyParkState(12n), lostBefore: 10n };
    state.held.set(a, 11n);
    state.parked.set(11n, b);
    expect(encodeParkState(state)).toBe(`krt-parked/2 +1 ~2 ${[`${a}@1`, `${b}:1`].sort().join(' ')} .`);
    expect(readParkState(11n, parkStateMetadata(state), ID)).toEqual({ state });
    const justLost: ParkState = { ...emptyParkState(10n), lostBefore: 10n };
    expect(encodeParkState(justLost)).toBe('krt-parked/2 +0 ~0 .');
    expect(decodeParkState(10n, 'krt-parked/2 +0 ~0 .')).toEqual(justLost);
    expect(decodeParkState(10n, 'krt-parked/1 +0 ~0')).toEqual(justLost); // as an earlier release wrote it
    expect(readParkState(10n, 'krt-parked/1 +0 ~0', ID)).toEqual({ state: justLost, legacy: true }); // said so: the runtime gives it an id
    // A mark before offset 0, in the wrong place, twice, or with digits the encoder would not write: not ours.
    for (const metadata of ['krt-parked/2 +0 ~b .', `krt-parked/2 +0 ${a}@1 ~2 .`, 'krt-parked/2 +0 ~1 ~1 .', 'krt-parked/2 +0 ~01 .', 'krt-parked/2 +0 ~ .', 'krt-parked/1 +0 ~b', 'krt-parked/1 +0 ~01']) {
      expect(readParkState(10n, metadata, ID).lost).toBe('unreadable');
    }
  });

  it('keeps the mark of a shed (^, after the lost mark, before the id) and reads it back; out of place, twice or with digits the encoder would not write, not ours', () => {
    const state: ParkState = { ...emptyParkState(12n), lostBefore: 2n, shedBefore: 9n, id: 'AbC-_123' };
    state.held.set(a, 5n);
    expect(encodeParkState(state)).toBe(`krt-parked/2 +0 ~a ^3 !AbC-_123 ${a}@7 .`);
    expect(readParkState(12n, parkStateMetadata(state), ID)).toEqual({ state });
    const shedOnly: ParkState = { ...emptyParkState(4n), shedBefore: 4n };
    expect(decodeParkState(4n, encodeParkState(shedOnly))).toEqual(shedOnly);
    for (const metadata of ['krt-parked/2 +0 ^b .', 'krt-parked/2 +0 ^1 ~1 .', 'krt-parked/2 +0 ^1 ^1 .', 'krt-parked/2 +0 ^01 .', 'krt-parked/2 +0 !AbC-_123 ^1 .', `krt-parked/2 +0 ${a}@1 ^1 .`]) {
      expect(readParkState(10n, metadata, ID).lost).toBe('unreadable');
    }
  });

  it('keeps the replays that ran (%tier.offset=retry id, after the id, in string order) and reads them back; out of place, twice, unsorted or with digits the encoder would not write, not ours', () => {
    const state: ParkState = { ...emptyParkState(12n), id: 'AbC-_123' };
    state.held.set(a, 5n);
    markRanUnjudged(state, 'rrrrrr', { tier: 1, offset: 40n });
    markRanUnjudged(state, 'qqqqqq', { tier: 0, offset: 7n });
    expect(encodeParkState(state)).toBe(`krt-parked/2 +0 !AbC-_123 %0.7=qqqqqq %1.14=rrrrrr ${a}@7 .`);
    expect(readParkState(12n, parkStateMetadata(state), ID)).toEqual({ state });
    const ranOnly: ParkState = emptyParkState(4n);
    markRanUnjudged(ranOnly, 'zzzzzz', { tier: 2, offset: 0n });
    expect(decodeParkState(4n, encodeParkState(ranOnly))).toEqual(ranOnly);
    for (const metadata of ['krt-parked/2 +0 %1.14=rrrrrr %0.7=qqqqqq .', 'krt-parked/2 +0 %0.7=qqqqqq %0.7=qqqqqq .', 'krt-parked/2 +0 %0.07=qqqqqq .', 'krt-parked/2 +0 %0.7=qqqqq .', 'krt-parked/2 +0 %0.7 .', `krt-parked/2 +0 ${a}@1 %0.7=qqqqqq .`, 'krt-parked/2 +0 %0.7=qqqqqq !AbC-_123 .']) {
      expect(readParkState(10n, metadata, ID).lost).toBe('unreadable');
    }
  });

  it('keeps the id of a state begun from nothing (!, after the lost mark) and reads it back; an id of another length, out of place or twice is not ours', () => {
    const state: ParkState = { ...emptyParkState(12n), lostBefore: 10n, id: 'AbC-_123' };
    state.held.set(a, 11n);
    expect(encodeParkState(state)).toBe(`krt-parked/2 +0 ~2 !AbC-_123 ${a}@1 .`);
    expect(readParkState(12n, parkStateMetadata(state), ID)).toEqual({ state });
    const fresh: ParkState = { ...emptyParkState(3n), id: 'zzzzzzzz' };
    expect(decodeParkState(3n, encodeParkState(fresh))).toEqual(fresh);
    // A byte after the id (a reader that lost the NUL) makes it no id: the state reads as lost, not as another id.
    for (const metadata of ['krt-parked/2 +0 !AbC-_1230 .', 'krt-parked/2 +0 !AbC-_12 .', 'krt-parked/2 +0 ! .', `krt-parked/2 +0 ${a}@1 !AbC-_123 .`, 'krt-parked/2 +0 !AbC-_123 ~0 .', 'krt-parked/2 +0 !AbC-_123 !AbC-_123 .', 'krt-parked/2 +0 !AbC+_123 .', 'krt-parked/1 +0 !AbC-_1230']) {
      expect(readParkState(10n, metadata, ID).lost).toBe('unreadable');
    }
  });

  it('tells a tier record written under another state (both with ids, different) from one it can judge (the same id, or either without one)', () => {
    const state: ParkState = { ...emptyParkState(0n), id: 'AbC-_123' };
    expect(writtenUnderAnotherState(state, 'zzzzzzzz')).toBe(true);
    expect(writtenUnderAnotherState(state, 'AbC-_123')).toBe(false);
    expect(writtenUnderAnotherState(state, undefined)).toBe(false);
    expect(writtenUnderAnotherState(emptyParkState(0n), 'zzzzzzzz')).toBe(false); // the id did not fit: judged as before ids
  });

  it('reads a state that holds a key before offset 0, or parks a record at the position beside a good hold, as an empty state', () => {
    expect(decodeParkState(0n, `krt-parked/1 +0 ${a}@1`)).toEqual(emptyParkState(0n));
    expect(decodeParkState(10n, `krt-parked/1 +0 ${a}@1:0`)).toEqual(emptyParkState(10n));
  });

  describe('a hold taken by a replayed record\'s retry', () => {
    const retryId = retryIdOfReplay('billing.retry.1m', 0, '41');

    it('keeps its retry id after the hold\'s distance, and reads it back', () => {
      const state = emptyParkState(12n);
      takeHold(state, a, 10n, retryId);
      const text = encodeParkState(state);
      expect(text).toBe(`${PARK_STATE_FORMAT} +0 ${a}@2=${retryId} .`);
      expect(decodeParkState(12n, text)).toEqual(state);
    });

    it('may hold its key at the position (a replay of a record not read yet), and reads it back; a main record\'s retry there is not ours', () => {
      const state = emptyParkState(12n);
      takeHold(state, a, 12n, retryId);
      const text = encodeParkState(state);
      expect(text).toBe(`${PARK_STATE_FORMAT} +0 ${a}@0=${retryId} .`);
      expect(decodeParkState(12n, text)).toEqual(state);
      expect(readParkState(12n, `${PARK_STATE_FORMAT} +0 ${a}@0 .`, ID).lost).toBe('unreadable');
      expect(readParkState(12n, `${PARK_STATE_FORMAT} +0 ${a}@0=${retryId}:0 .`, ID).lost).toBe('unreadable'); // a parked record there still is not
    });

    it('reads a retry id with no hold before it, or of another length, as lost', () => {
      expect(readParkState(12n, `${PARK_STATE_FORMAT} +0 ${a}=${retryId} .`, ID).lost).toBe('unreadable');
      expect(readParkState(12n, `${PARK_STATE_FORMAT} +0 ${a}@2=${retryId.slice(1)} .`, ID).lost).toBe('unreadable');
      expect(readParkState(12n, `${PARK_STATE_FORMAT} +0 ${a}@2=${retryId}x .`, ID).lost).toBe('unreadable');
    });

    it('gives a replay written at another place another retry id, one of 6 URL-safe characters', () => {
      expect(retryId).toMatch(RETRY_ID_PATTERN);
      expect(retryIdOfReplay('billing.retry.1m', 0, '42')).not.toBe(retryId);
      expect(retryIdOfReplay('billing.retry.1m', 1, '41')).not.toBe(retryId);
      expect(retryIdOfReplay('billing.retry.10m', 0, '41')).not.toBe(retryId);
    });

    it('goes with its hold: released, or taken again by a main record\'s retry, the key keeps none', () => {
      const state = emptyParkState(12n);
      takeHold(state, a, 10n, retryId);
      takeHold(state, b, 11n, retryId);
      releaseHold(state, a);
      expect(state.retryIds).toEqual(new Map([[b, retryId]]));
      takeHold(state, b, 11n);
      expect(state.retryIds).toBeUndefined();
      expect(encodeParkState(state)).toBe(`${PARK_STATE_FORMAT} +0 ${b}@1 .`);
    });
  });

  describe('the mark of a give-up', () => {
    it('is written after the shed\'s mark and before the id, as a distance below the position, and read back', () => {
      const state: ParkState = { ...emptyParkState(12n), shedBefore: 8n, givenUpBefore: 10n, id: 'AbC-_123' };
      takeHold(state, a, 4n);
      const text = encodeParkState(state);
      expect(text).toBe(`${PARK_STATE_FORMAT} +0 ^4 &2 !AbC-_123 ${a}@8 .`);
      expect(decodeParkState(12n, text)).toEqual(state);
    });

    it('reads a mark out of its place, doubled, or below offset 0, as lost', () => {
      expect(readParkState(12n, `${PARK_STATE_FORMAT} +0 &2 ^4 .`, ID).lost).toBe('unreadable');
      expect(readParkState(12n, `${PARK_STATE_FORMAT} +0 &2 &2 .`, ID).lost).toBe('unreadable');
      expect(readParkState(12n, `${PARK_STATE_FORMAT} +0 &d .`, ID).lost).toBe('unreadable');
    });
  });

  const hashes = [a, b, keyHash(Buffer.from('order-44'))];
  /** Text near the format: the tag, a distance, entries of known hashes with small distances, or any string. */
  const nearState = fc.oneof(
    fc.string(),
    fc
      .tuple(
        fc.nat({ max: 12 }),
        fc.option(fc.nat({ max: 40 })),
        fc.array(fc.tuple(fc.constantFrom(...hashes), fc.option(fc.nat({ max: 12 })), fc.array(fc.nat({ max: 12 }), { maxLength: 3 }), fc.option(fc.constantFrom('Ab-_9z', 'Ab-_9', 'Ab-_9zz', 'Ab.9zz'))), { maxLength: 3 }),
        fc.option(fc.nat({ max: 40 })),
      )
      .map(([d, lost, entries, shed]) => [d % 2 === 0 ? PARK_STATE_FORMAT : LEGACY_PARK_STATE_FORMAT, `+${d.toString(36)}`, ...(lost === null ? [] : [`~${lost.toString(36)}`]), ...(shed === null ? [] : [`^${shed.toString(36)}`]), ...(d % 5 === 1 ? [`&${(d + 1).toString(36)}`] : []), ...(d % 3 === 0 ? [`!${'AbC-_123xyz'.slice(0, 6 + (d % 4))}`] : []), ...entries.map(([h, held, parked, retryId]) => `${h}${held === null ? '' : `@${held.toString(36)}`}${retryId === null ? '' : `=${retryId}`}${parked.length ? `:${parked.map((p) => p.toString(36)).join(',')}` : ''}`), ...(lost !== null && lost % 2 === 0 ? [] : ['.'])].join(' ')),
  );
  /** What an earlier release wrote for `state`: the legacy tag, no end token. */
  const legacyText = (state: ParkState) => encodeParkState(state).replace(PARK_STATE_FORMAT, LEGACY_PARK_STATE_FORMAT).replace(/ \.$/, '');

  it('decodes any text either to a state that encodes back to that text at the committed offset, or to an empty state (property)', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 20n }), nearState, (committed, text) => {
        const state = decodeParkState(committed, text);
        const empty = state.held.size === 0 && state.parked.size === 0 && state.position === committed && state.lostBefore === undefined && state.shedBefore === undefined && state.id === undefined && state.retryIds === undefined && state.givenUpBefore === undefined;
        expect(empty || ((encodeParkState(state) === text || legacyText(state) === text) && committedOffsetOf(state) === committed)).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });

  it('reads back every state it writes (property)', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 0n, max: 1000n }),
        fc.array(fc.tuple(fc.constantFrom(...hashes), fc.bigInt({ min: 0n, max: 50n }), fc.option(fc.stringMatching(RETRY_ID_PATTERN))), { maxLength: 3 }),
        fc.uniqueArray(fc.tuple(fc.bigInt({ min: 1n, max: 50n }), fc.constantFrom(...hashes)), { selector: ([d]) => d, maxLength: 6 }),
        fc.option(fc.bigInt({ min: 0n, max: 50n })),
        fc.option(fc.bigInt({ min: 0n, max: 50n })),
        fc.option(fc.stringMatching(/^[A-Za-z0-9_-]{8}$/)),
        (position, held, parked, lost, shed, id) => {
          const state: ParkState = lost === null ? emptyParkState(position + 50n) : { ...emptyParkState(position + 50n), lostBefore: position + 50n - lost };
          if (shed !== null) state.shedBefore = state.position - shed;
          if (lost !== null && shed !== null) state.givenUpBefore = state.position - ((lost + shed) % 50n);
          if (id !== null) state.id = id;
          // At the position (distance 0) only a replayed record's retry holds.
          for (const [h, d, retryId] of held) takeHold(state, h, state.position - (d === 0n && retryId === null ? 1n : d), retryId ?? undefined);
          for (const [d, h] of parked) state.parked.set(state.position - d, h);
          expect(decodeParkState(committedOffsetOf(state), encodeParkState(state))).toEqual(state);
          expect(decodeParkState(committedOffsetOf(state), legacyText(state))).toEqual(state); // and what an earlier release wrote
        },
      ),
    );
  });

  it('reads a state it wrote with any byte after it, or cut short anywhere, as lost, never as another state (property)', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 0n, max: 1000n }),
        fc.array(fc.tuple(fc.constantFrom(...hashes), fc.bigInt({ min: 1n, max: 50n })), { maxLength: 3 }),
        fc.option(fc.stringMatching(/^[A-Za-z0-9_-]{8}$/)),
        fc.string({ minLength: 1, maxLength: 2 }).filter((extra) => !extra.startsWith('\0')),
        (position, held, id, extra) => {
          const state: ParkState = { ...emptyParkState(position + 50n), ...(id === null ? {} : { id }) };
          for (const [h, d] of held) state.held.set(h, state.position - d);
          const text = encodeParkState(state);
          const committed = committedOffsetOf(state);
          expect(readParkState(committed, `${text}${extra}`, ID).lost).toBe('unreadable');
          for (let cut = 1; cut < text.length; cut++) expect(readParkState(committed, text.slice(0, cut), ID).lost).toBe('unreadable');
        },
      ),
    );
  });
});
