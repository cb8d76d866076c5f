import { emitTerraform } from '../src/emitters/terraform';
import { synthesizeForGuard } from '../src/emitters/terraform';
import type { ProjectModel } from '../src/model/types';
import { aConsumer, aTopology, compile } from './helpers/specs';

/** cdktf's process-wide token registry, where a token keeps the stack that made it. */
const registeredTokens = () => (globalThis as { __cdktfTokenMap?: { stringTokenMap: Map<string, unknown> } }).__cdktfTokenMap?.stringTokenMap.size ?? 0;

function modelOf(name: string, consumers: number): ProjectModel {
  const specs = Array.from({ length: consumers }, (_, i) => aConsumer({ name: `${name}-consumer-${i}`, topic: { name: `${name}.orders-${i}`, partitions: 3 } }));
  return compile(aTopology({ name, consumers: specs })).model!;
}

describe('the Terraform a synth builds', () => {
  it('keeps none of the stacks it built once their JSON is made', () => {
    emitTerraform(modelOf('orders', 3));
    expect(registeredTokens()).toBe(0);
  });

  it('keeps none of the stacks the outcome guard built either', () => {
    synthesizeForGuard(modelOf('orders', 2).topologies);
    expect(registeredTokens()).toBe(0);
  });

  it('gives the same JSON for a topology built again after other stacks were built and released', () => {
    const orders = modelOf('orders', 2);
    const first = emitTerraform(orders).map((f) => f.content);
    emitTerraform(modelOf('payments', 4));
    expect(emitTerraform(orders).map((f) => f.content)).toEqual(first);
  });
});

describe('releasing the tokens of the stacks a synth built', () => {
  it('keeps the tokens registered before, which a cdktf App still being built needs', () => {
    const { App, TerraformStack, TerraformVariable, TerraformOutput } = jest.requireActual<typeof import('cdktf')>('cdktf');
    const app = new App({ skipValidation: true });
    const stack = new TerraformStack(app, 'under-construction');
    new TerraformOutput(stack, 'out', { value: new TerraformVariable(stack, 'in', { type: 'string' }).stringValue });
    const registered = registeredTokens();
    expect(registered).toBeGreaterThan(0);
    emitTerraform(modelOf('orders', 2));
    expect(registeredTokens()).toBe(registered);
    expect(JSON.stringify(stack.toTerraform())).toContain('${var.in}');
  });
});
