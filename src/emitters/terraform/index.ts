import { App } from 'cdktf';
import type { Emitter } from '../types';
import { GENERATED_NOTICE } from '../types';
import { TopologyStack } from './topology-stack';

export { TopologyStack } from './topology-stack';

/** `terraform/<topology>/cdk.tf.json`: plain Terraform JSON that Terraform and OpenTofu apply. */
export const emitTerraform: Emitter = (model) =>
  model.topologies.map((topology) => {
    const app = new App({ skipValidation: true });
    const stack = new TopologyStack(app, topology);
    const { '//': metadata, ...rest } = stack.toTerraform() as Record<string, unknown>;
    // Terraform JSON ignores "//" keys: the one place this format allows a comment.
    const json = { '//': { notice: GENERATED_NOTICE, ...(metadata as object) }, ...rest };
    return { path: `terraform/${topology.name}/cdk.tf.json`, content: `${JSON.stringify(json, null, 2)}\n` };
  });
