/** A topology file as a team writes it: `consumers` consumers of its own, topics and principals named after it. */
export function topologySource(name: string, consumers: number, header = "import { defineTopology } from 'kafka-retry-topology';\n"): string {
  const list = Array.from({ length: consumers }, (_, i) =>
    [
      '    {',
      `      name: '${name}-consumer-${i}',`,
      `      topic: { name: '${name}.topic-${i}', partitions: 12 },`,
      `      principal: 'User:${name}-service',`,
      "      ladder: ['10s', '1m', '10m'],",
      `      criticality: '${(['money', 'standard', 'analytics'] as const)[i % 3]}',`,
      '    },',
    ].join('\n'),
  ).join('\n');
  return [
    header,
    'export default defineTopology({',
    `  name: '${name}',`,
    `  owner: { team: '${name}-team', onCall: '#${name}' },`,
    "  runbookBaseUrl: 'https://runbooks.example.com/kafka',",
    '  consumers: [',
    list,
    '  ],',
    '});',
    '',
  ].join('\n');
}

/** A topology file of the given consumers (each a spec object literal, as `consumerSource` writes it). */
export function topologyOf(name: string, consumers: readonly string[]): string {
  return [
    "import { defineTopology } from 'kafka-retry-topology';",
    `export default defineTopology({ name: '${name}', owner: { team: '${name}', onCall: '#${name}' }, runbookBaseUrl: 'https://runbooks.example.com/kafka', consumers: [`,
    ...consumers.map((c) => `  ${c},`),
    ']});',
    '',
  ].join('\n');
}

/** A consumer of topic `<name>.events` with a two-tier ladder; `extra` adds fields (`, decommissioned: true`). */
export function consumerSource(name: string, extra = ''): string {
  return `{ name: '${name}', topic: { name: '${name}.events', partitions: 6 }, principal: 'User:${name}', ladder: ['1m', '10m']${extra} }`;
}
