import { App } from 'cdktf';
import type { Emitter } from '../types';
import { GENERATED_NOTICE } from '../types';
import { topologyStacks } from './topology-stack';

export { FormerStack, TopologyStack, topologyStacks } from './topology-stack';

/** `terraform/<topology>/cdk.tf.json`: plain Terraform JSON that Terraform and OpenTofu apply. */
export const emitTerraform: Emitter = (model) =>
  model.topologies.flatMap((topology) =>
    topologyStacks(new App({ skipValidation: true }), topology).map((stack) => {
      const { '//': metadata, ...rest } = stack.toTerraform() as Record<string, unknown>;
      // Terraform JSON ignores "//" keys: the one place this format allows a comment.
      const json = { '//': { notice: GENERATED_NOTICE, ...(metadata as object) }, ...rest };
      return { path: `terraform/${stack.node.id}/cdk.tf.json`, content: `${JSON.stringify(json, null, 2)}\n` };
    }),
  );
