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
  return startingWell(identifierCharacters(text));
}

/** Each character a Terraform identifier cannot hold replaced, one by one: the replacement of a joined text is the join of its parts' replacements. */
function identifierCharacters(text: string): string {
  return text.replace(/[^A-Za-z0-9_-]/g, '_');
}

function startingWell(id: string): string {
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

/**
 * `aclResourceId` for the many ACLs of a stack, each distinct name's characters replaced
 * once: the same ids (the replacement is per character), for a fraction of the work.
 */
export function aclResourceIds(): (acl: AclAddressParts) => string {
  const replaced = new Map<string, string>();
  const part = (text: string) => {
    let id = replaced.get(text);
    if (id === undefined) replaced.set(text, (id = identifierCharacters(text)));
    return id;
  };
  return (acl) => startingWell(`${part(acl.principalName)}_${part(acl.operation.toLowerCase())}_${part(acl.resourceType.toLowerCase())}_${part(acl.resourceName)}`);
}
