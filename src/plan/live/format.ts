import type { LiveFinding } from './compare';

/** The live check for people: findings grouped by consumer (or topology, for ACLs). */
export function formatLive(findings: readonly LiveFinding[]): string {
  const lines: string[] = [];
  let group = '';
  for (const f of findings) {
    const title = f.consumer ? `${f.topology} / ${f.consumer}` : `${f.topology} (topology)`;
    if (title !== group) {
      if (group) lines.push('');
      lines.push(title);
      group = title;
    }
    lines.push(`  ${f.kind.padEnd(8)}  ${f.text}`);
  }
  const drifts = findings.filter((f) => f.kind === 'drift').length;
  if (lines.length > 0) lines.push('');
  lines.push(drifts === 0 ? 'the cluster matches the spec' : `${drifts} ${drifts === 1 ? 'difference' : 'differences'} between the cluster and the spec`);
  return `${lines.join('\n')}\n`;
}

export function liveJson(findings: readonly LiveFinding[]): string {
  const json = {
    findings: findings.map((f) => ({ topology: f.topology, consumer: f.consumer ?? null, kind: f.kind, text: f.text })),
    drift: findings.filter((f) => f.kind === 'drift').length,
  };
  return `${JSON.stringify(json, null, 2)}\n`;
}
