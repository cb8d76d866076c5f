import { modelKey } from '../cache/synth-cache';
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
}
