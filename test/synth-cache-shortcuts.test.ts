import { mkdirSync, readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import path from 'node:path';
import { krtFingerprint } from '../src/cache/fingerprint';
import { OutputHashes } from '../src/cache/output-hashes';
import { STORE_DIR, SynthCache } from '../src/cache/synth-cache';
import type { ProjectModel } from '../src/model/types';
import { knownBaseline } from '../src/synth/known-baseline';
import { ModelKeys } from '../src/synth/model-keys';
import { readModelSnapshot } from '../src/writer/model-snapshot';
import { ScratchProject } from './helpers/project';
import { topologySource } from './helpers/topology-source';

/**
 * The shortcuts a one-topology edit takes in a large repository: the committed model
 * snapshot known from the cache instead of read, and committed stacks that are what krt
 * wrote left unread. Each must still notice a stale input: a file edited behind the
 * cache's back (even to the same size with its modification time put back), a record
 * damaged to other valid JSON. A cached synth must then say what a synth without the
 * cache says.
 */
jest.setTimeout(120_000);

let project: ScratchProject;
beforeEach(() => {
  project = new ScratchProject(false);
  mkdirSync(project.path('topologies'));
  project.write('topologies/alpha.ts', topologySource('alpha', 2));
  project.write('topologies/beta.ts', topologySource('beta', 2));
});
afterEach(() => project.remove());

const SNAPSHOT = 'generated/.krt-model.json';
const ALPHA_STACK = 'generated/terraform/alpha/cdk.tf.json';
const TIME = 1_700_000_000;
const SWITCH = "switching ordering from 'park-by-key' to 'unordered'";

/** Two synths, so that the second has trusted every file's status and the cache knows the snapshot the folder holds. */
async function synthTwice(): Promise<void> {
  expect(await project.krt('synth')).toMatchObject({ code: 0, stderr: '' });
  // A whole second, which a file's status holds exactly, for `editKeepingStatus` to put back.
  for (const file of [SNAPSHOT, ALPHA_STACK]) utimesSync(project.path(file), TIME, TIME);
  // Past the window in which a file's status may not show a change.
  await new Promise((resolve) => setTimeout(resolve, 1100));
  expect((await project.krt('synth')).stdout).toContain('2 of 2 topologies unchanged, reused from the cache');
}

/** The spec edit of the bench: one topology's on-call channel, which changes its model. */
function editBeta(): void {
  project.edit('topologies/beta.ts', "onCall: '#beta'", "onCall: '#beta-2'");
}

/** `krt synth` with the cache, then without: the same exit code and messages. */
async function synthAgreesWithoutCache(): Promise<{ code: number; stderr: string }> {
  const cached = await project.krt('synth');
  const reference = await project.krt('synth', '--no-cache');
  expect({ code: cached.code, stderr: cached.stderr }).toEqual({ code: reference.code, stderr: reference.stderr });
  return cached;
}

/**
 * Replaces `from` with `to` in a file, keeping its size (JSON indentation absorbs the
 * difference) and putting back the modification time `synthTwice` gave it: only its
 * change time and content tell.
 */
function editKeepingStatus(relative: string, from: string, to: string): void {
  const file = project.path(relative);
  const { size } = statSync(file);
  const text = readFileSync(file, 'utf8');
  if (!text.includes(from)) throw new Error(`${relative} does not contain ${from}`);
  let edited = text.replace(from, to);
  const excess = edited.length - text.length;
  const indented = /\n( {6,})"/.exec(edited)!;
  if (excess > 0) edited = edited.replace(indented[0], `\n${indented[1]!.slice(excess)}"`);
  else if (excess < 0) edited = edited.replace(indented[0], `\n${indented[1]}${' '.repeat(-excess)}"`);
  writeFileSync(file, edited);
  utimesSync(file, TIME, TIME);
  expect(statSync(file)).toMatchObject({ size, mtimeMs: TIME * 1000 });
}

/** The snapshot's first consumer of alpha as committed by park-by-key ordering, in its own retry group. */
function parkByKeyInSnapshot(edit: (from: string, to: string) => void): void {
  edit('"ordering": "unordered"', '"ordering": "park-by-key"');
  edit('"retry": "alpha-consumer-0.retry"', '"retry": "alpha-consumer-0.parked"');
}

describe('the committed model snapshot, known from the cache', () => {
  it('is read again when edited by hand after the synth the cache remembers: a guard then judges the edited one', async () => {
    await synthTwice();
    parkByKeyInSnapshot((from, to) => project.edit(SNAPSHOT, from, to));
    editBeta();
    const result = await synthAgreesWithoutCache();
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(SWITCH);
  });

  it('is read again when edited to the same size with its modification time put back', async () => {
    await synthTwice();
    parkByKeyInSnapshot((from, to) => editKeepingStatus(SNAPSHOT, from, to));
    editBeta();
    const result = await synthAgreesWithoutCache();
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(SWITCH);
  });

  it("does not take a model record damaged to other valid JSON, checksum right, for the snapshot's model", async () => {
    await synthTwice();
    // Every stored model JSON now says park-by-key, each with a valid checksum: none hashes to its key any more.
    const dir = project.path(path.join(STORE_DIR, 'json'));
    const records = readdirSync(dir);
    expect(records.length).toBeGreaterThan(0);
    for (const name of records) {
      const body = readFileSync(path.join(dir, name), 'utf8').split('\n').slice(1).join('\n');
      const damaged = body.replace('"ordering":"unordered"', '"ordering":"park-by-key"').replace(/"retry":"(\w+-consumer-0)\.retry"/, '"retry":"$1.parked"');
      writeFileSync(path.join(dir, name), `${createHash('sha256').update(damaged).digest('hex')}\n${damaged}`);
    }
    editBeta();
    expect(await synthAgreesWithoutCache()).toMatchObject({ code: 0, stderr: '' });
    // And the edit after that, from records the last run wrote again.
    project.edit('topologies/beta.ts', "onCall: '#beta-2'", "onCall: '#beta-3'");
    expect(await synthAgreesWithoutCache()).toMatchObject({ code: 0, stderr: '' });
  });
});

describe('committed stacks left unread because they are what krt wrote', () => {
  it('include none edited by hand to the same size with its modification time put back: the shrink it makes is refused', async () => {
    await synthTwice();
    // alpha's spec is unchanged, so its stack would be skipped if its status were trusted; Terraform would shrink the topic back.
    editKeepingStatus(ALPHA_STACK, '"partitions": 12', '"partitions": 24');
    editBeta();
    const result = await synthAgreesWithoutCache();
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('alpha');
    expect(result.stderr).toMatch(/24/);
  });
});

describe('the snapshot as the cache knows it', () => {
  const known = (fingerprint: string, current: ProjectModel) => {
    const cache = new SynthCache(project.dir, fingerprint);
    return knownBaseline(cache, new OutputHashes(cache, project.path('generated')), new ModelKeys(fingerprint), current);
  };

  it('is the snapshot as read, each model from its own record when the specs no longer compile to it', async () => {
    await synthTwice();
    const snapshot = readModelSnapshot(project.path('generated'))!.model;
    expect(known(krtFingerprint()!, { topologies: [] })).toEqual(snapshot);
    expect(known(krtFingerprint()!, snapshot)).toEqual(snapshot);
  });

  it('is unknown to another krt (a library upgraded, krt changed: another fingerprint)', async () => {
    await synthTwice();
    expect(known(`${krtFingerprint()!}-upgraded`, { topologies: [] })).toBeUndefined();
    expect(known(`${krtFingerprint()!}-upgraded`, readModelSnapshot(project.path('generated'))!.model)).toBeUndefined();
  });
});
