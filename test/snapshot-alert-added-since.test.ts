import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ALERT_KEYS } from '../src/alerts';
import { CRITICALITY_PRESETS } from '../src/model/criticality';
import { MODEL_SNAPSHOT_FILE, modelSnapshotFile, readModelSnapshot } from '../src/writer/model-snapshot';
import { aConsumer, aTopology, compile } from './helpers/specs';

/**
 * Found by the review of #24: with an alert added (its module and its list entry), every
 * committed snapshot lacked that alert's policy and the next `krt synth` refused it as
 * "not a model snapshot this krt can read ... restore it from git", which could not help.
 * A snapshot may lack any alert: its policy is the consumer's criticality preset.
 */
describe('a model snapshot written before an alert existed', () => {
  const model = compile(aTopology({ consumers: [aConsumer({ criticality: 'money' }), aConsumer({ name: 'audit-order-confirmed', principal: 'User:audit', topic: { name: 'orders.audited', partitions: 3 }, criticality: 'analytics' })] })).model!;
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(path.join(os.tmpdir(), 'krt-snapshot-alert-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it.each(ALERT_KEYS)('is read with %s set to each consumer\'s criticality preset when it lacks it', (missing) => {
    const snapshot = JSON.parse(modelSnapshotFile(model).content) as { topologies: { consumers: { alerts: Record<string, unknown> }[] }[] };
    for (const topology of snapshot.topologies) for (const consumer of topology.consumers) delete consumer.alerts[missing];
    writeFileSync(path.join(dir, MODEL_SNAPSHOT_FILE), JSON.stringify(snapshot));
    const read = readModelSnapshot(dir)!.model;
    for (const consumer of read.topologies[0]!.consumers) expect(consumer.alerts[missing]).toEqual(CRITICALITY_PRESETS[consumer.criticality][missing]);
    expect(read).toEqual(JSON.parse(JSON.stringify(model)));
    expect(readFileSync(path.join(dir, MODEL_SNAPSHOT_FILE), 'utf8')).not.toContain(`"${missing}"`);
  });
});
