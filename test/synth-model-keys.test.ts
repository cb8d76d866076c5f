import { isPlainJson, ModelKeys } from '../src/synth/model-keys';
import type { TopologyModel } from '../src/model/types';

/**
 * The synth cache may hand the guards and the emitters a model object itself instead of
 * parsing its JSON (a large repository's models are megabytes), but only when the two are
 * indistinguishable: anything JSON changes on the way must be parsed.
 */
describe('a model shared instead of parsed from its JSON', () => {
  class Tier {
    constructor(readonly name: string) {}
  }

  it.each([
    ['a number JSON writes as null', { retentionMs: Infinity }],
    ['NaN', { partitions: NaN }],
    ['minus zero, which JSON writes as 0', { delayMs: -0 }],
    ['a field set to undefined, which JSON leaves out', { previousName: undefined }],
    ['a hole in an array', { tiers: [1, , 3] }],
    ['undefined in an array, which JSON writes as null', { tiers: [undefined] }],
    ['a Map, which JSON writes as {}', { config: new Map([['a', 'b']]) }],
    ['a Date, which JSON writes as a string', { at: new Date(0) }],
    ['an instance of a class', { tier: new Tier('t') }],
    ['a function', { name: () => 'x' }],
  ])('is parsed when it holds %s', (_what, model) => {
    expect(isPlainJson(model)).toBe(false);
    const models = new ModelKeys('fingerprint');
    const topology = model as unknown as TopologyModel;
    const given = models.parsed(topology);
    expect(given).not.toBe(topology);
    expect(given).toEqual(JSON.parse(JSON.stringify(model)));
  });

  it('is never a model holding a bigint, which JSON cannot write', () => {
    expect(isPlainJson({ offset: 1n })).toBe(false);
  });

  it('is the model itself when it is plain JSON, frozen', () => {
    const model = { name: 't', consumers: [{ name: 'c', partitions: 12, config: { 'retention.ms': '1' }, managed: true, note: null }], tiers: [] };
    expect(isPlainJson(model)).toBe(true);
    const given = new ModelKeys('fingerprint').parsed(model as unknown as TopologyModel);
    expect(given).toBe(model);
    expect(Object.isFrozen(model.consumers[0]!.config)).toBe(true);
  });
});
