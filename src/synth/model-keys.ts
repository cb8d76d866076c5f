import { modelKey } from '../cache/synth-cache';
import { deepFreeze } from '../model/build';
import type { TopologyModel } from '../model/types';

/** A topology's model as the cache knows it: its JSON, and the key of that JSON with krt's fingerprint (none without a cache). */
export interface KeyedModel {
  readonly json: string;
  readonly key: string | undefined;
}

/**
 * Each topology model's JSON and key, made once per model object in a run: the baseline,
 * the committed stacks and the emitters ask about the same frozen objects, and a large
 * repository's models are megabytes of JSON.
 */
export class ModelKeys {
  private readonly known = new WeakMap<TopologyModel, KeyedModel>();
  private readonly plain = new WeakMap<TopologyModel, boolean>();

  constructor(readonly fingerprint: string | undefined) {}

  of(topology: TopologyModel): KeyedModel {
    let keyed = this.known.get(topology);
    if (!keyed) {
      const json = JSON.stringify(topology);
      keyed = { json, key: this.fingerprint === undefined ? undefined : modelKey(this.fingerprint, json) };
      this.known.set(topology, keyed);
    }
    return keyed;
  }

  /**
   * The model as parsing its JSON gives it back: the model itself when it is plain JSON
   * already (walking it costs a fraction of parsing it), else parsed. Either way frozen.
   */
  parsed(topology: TopologyModel): TopologyModel {
    let plain = this.plain.get(topology);
    if (plain === undefined) {
      plain = isPlainJson(topology);
      this.plain.set(topology, plain);
    }
    return deepFreeze(plain ? topology : (JSON.parse(this.of(topology).json) as TopologyModel));
  }
}

/**
 * Whether a value is exactly what JSON.parse of its JSON gives back: strings, booleans,
 * null, finite numbers (not -0), arrays without holes, and objects of Object's prototype
 * whose own values are all such (none undefined, no function, Map, Date or class
 * instance). Models are built of object literals, so no other kind of property is looked for.
 */
export function isPlainJson(value: unknown): boolean {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return true;
    case 'number':
      return Number.isFinite(value) && !Object.is(value, -0);
    case 'object': {
      if (value === null) return true;
      if (Array.isArray(value)) {
        for (let i = 0; i < value.length; i++) if (!(i in value) || !isPlainJson(value[i])) return false;
        return true;
      }
      if (Object.getPrototypeOf(value) !== Object.prototype) return false;
      for (const key of Object.keys(value)) if (!isPlainJson((value as Record<string, unknown>)[key])) return false;
      return true;
    }
    default:
      return false;
  }
}
