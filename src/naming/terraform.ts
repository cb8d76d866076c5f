/**
 * Terraform addresses. They are contracts too: renaming one makes Terraform destroy and
 * recreate the topic, so they derive from the topic or group name alone, never from
 * the order of resources in the spec.
 */

export const TERRAFORM_VARIABLES = {
  bootstrapServers: 'kafka_bootstrap_servers',
  saslUsername: 'kafka_sasl_username',
  saslPassword: 'kafka_sasl_password',
  saslMechanism: 'kafka_sasl_mechanism',
  tlsEnabled: 'kafka_tls_enabled',
  replicationFactor: 'replication_factor',
  minInsyncReplicas: 'min_insync_replicas',
} as const;

/** Letters, digits, '_' and '-', starting with a letter or '_'. */
function terraformIdentifier(text: string): string {
  const id = text.replace(/[^A-Za-z0-9_-]/g, '_');
  return /^[A-Za-z_]/.test(id) ? id : `_${id}`;
}

export function topicResourceId(topic: string): string {
  return terraformIdentifier(topic);
}

export interface AclAddressParts {
  readonly principalName: string;
  readonly operation: string;
  readonly resourceType: string;
  readonly resourceName: string;
}

export function aclResourceId(acl: AclAddressParts): string {
  return terraformIdentifier(
    `${acl.principalName}_${acl.operation.toLowerCase()}_${acl.resourceType.toLowerCase()}_${acl.resourceName}`,
  );
}
