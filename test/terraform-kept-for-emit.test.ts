import { emitTerraform, synthesizeForGuard } from '../src/emitters/terraform';
import type { ProjectModel } from '../src/model/types';
import { aConsumer, aTopology, compile } from './helpers/specs';

function modelOf(...topologies: unknown[]): ProjectModel {
  const result = compile(...topologies);
  if (!result.model) throw new Error(result.diagnostics.map((d) => `${d.path}: ${d.message}`).join('\n'));
  return result.model;
}

describe('the stacks the outcome guard synthesizes, kept for the emitter', () => {
  it('are the very Terraform the emitter writes for that topology', () => {
    const model = modelOf(aTopology({}));
    const alone = emitTerraform(modelOf(aTopology({}))).map((f) => f.content);
    const guarded = synthesizeForGuard(model.topologies).map((f) => f.content);
    expect(guarded).toEqual(alone);
    expect(emitTerraform(model).map((f) => f.content)).toEqual(alone);
  });

  it('are taken once: a second emit of the same model synthesizes again and gives the same files', () => {
    const model = modelOf(aTopology({}));
    const kept = synthesizeForGuard(model.topologies);
    const first = emitTerraform(model);
    const second = emitTerraform(model);
    expect(first.map((f) => f.content)).toEqual(kept.map((f) => f.content));
    expect(second.map((f) => f.content)).toEqual(kept.map((f) => f.content));
    expect(second[0]).not.toBe(first[0]);
  });

  it('are not kept when the guard synthesizes many topologies (a first synth), so memory stays one stack at a time', () => {
    const model = modelOf(...Array.from({ length: 11 }, (_, i) => aTopology({ name: `t${i}`, consumers: [aConsumer({ name: `c${i}`, topic: { name: `topic-${i}`, partitions: 12 } })] })));
    const kept = synthesizeForGuard(model.topologies);
    const emitted = emitTerraform(model);
    expect(emitted.map((f) => f.content)).toEqual(kept.map((f) => f.content));
    expect(emitted[0]).not.toBe(kept[0]);
  });
});
