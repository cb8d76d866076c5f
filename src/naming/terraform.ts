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

/**
 * Why two different names come out as one Terraform address, as a sentence after
 * "'a' and 'b' would share an address: ". Two things make names meet: the characters an
 * address cannot hold are each written '_', and an address that would start with a digit
 * or '-' gets a leading '_' (so '9a.dlq' meets '_9a.dlq'). `opening` is the part of a name
 * that starts its address (the whole topic name; a principal's name after `User:`), or
 * undefined for a name inside an address, which no leading '_' touches.
 */
export function sameAddressReason(a: string, b: string, opening: (name: string) => string | undefined = (name) => name): string {
  const startFixed = (name: string) => {
    const start = opening(name);
    return start === undefined || startingWell(identifierCharacters(start)) === identifierCharacters(start) ? name : `${name.slice(0, name.length - start.length)}_${start}`;
  };
  const [fixedA, fixedB] = [startFixed(a), startFixed(b)];
  const reasons: string[] = [];
  const fixed = [a, b].filter((name) => startFixed(name) !== name);
  if (fixed.length === 1) {
    const name = fixed[0]!;
    const first = opening(name)![0];
    reasons.push(`'${name}' starts with ${first === '-' ? "'-'" : 'a digit'}, which an address cannot, so krt puts '_' before it`);
  }
  if (fixedA !== fixedB) {
    const differing = new Set<string>();
    for (let i = 0; i < fixedA.length; i++) if (fixedA[i] !== fixedB[i]) differing.add(fixedA[i]!).add(fixedB[i]!);
    const listed = [...differing].sort().map((c) => `'${c}'`);
    const chars = listed.length > 1 ? `${listed.slice(0, -1).join(', ')} and ${listed.at(-1)}` : listed.join('');
    reasons.push(`${reasons.length > 0 ? 'then ' : ''}they differ only in ${chars}, which an address writes alike, as '_'`);
  }
  return reasons.join(', and ');
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
