import { formatDiagnostic } from '../validate/diagnostic';
import type { Plan, Risk } from './types';
import { RISKS } from './types';

export function riskCounts(plan: Plan): Record<Risk, number> {
  const counts = Object.fromEntries(RISKS.map((r) => [r, 0])) as Record<Risk, number>;
  for (const c of plan.groups.flatMap((g) => g.changes)) counts[c.risk] += 1;
  return counts;
}

/** The plan for people: one block per consumer (or topology), one line per change. */
export function formatPlan(plan: Plan, baseline: string): string {
  const lines: string[] = [];
  if (!plan.hasBaseline) lines.push(`no ${baseline} yet: everything below is new (run \`krt synth\` and commit generated/ to plan against it)`, '');
  const width = Math.max(...RISKS.map((r) => r.length));
  for (const group of plan.groups) {
    lines.push(group.consumer ? `${group.topology} / ${group.consumer}` : `${group.topology} (topology)`);
    for (const c of group.changes) lines.push(`  ${c.risk.padEnd(width)}  ${c.text}`);
    lines.push('');
  }
  if (plan.refused.length > 0) {
    lines.push('refused by krt synth until the spec says how to do it safely:');
    for (const d of plan.refused) lines.push(`  ${formatDiagnostic(d)}`);
    lines.push('');
  }
  const counts = riskCounts(plan);
  const total = plan.groups.reduce((n, g) => n + g.changes.length, 0);
  lines.push(
    total === 0 && plan.refused.length === 0
      ? `no changes against ${baseline}`
      : `${RISKS.map((r) => `${counts[r]} ${r}`).join(', ')}${plan.refused.length ? `, ${plan.refused.length} refused` : ''}`,
  );
  return `${lines.join('\n')}\n`;
}

/** The plan for CI: stable keys, one entry per change. */
export function planJson(plan: Plan): string {
  const json = {
    baseline: plan.hasBaseline,
    changes: plan.groups.flatMap((g) =>
      g.changes.map((c) => ({ topology: g.topology, consumer: g.consumer ?? null, risk: c.risk, text: c.text, terraform: c.terraform ?? null })),
    ),
    refused: plan.refused.map((d) => ({ file: d.file, path: d.path, message: d.message })),
    summary: { ...riskCounts(plan), refused: plan.refused.length },
  };
  return `${JSON.stringify(json, null, 2)}\n`;
}
