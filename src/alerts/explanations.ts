import { alertName } from '../naming';
import { DefectError } from '../runtime/krt-error';
import type { AlertModule } from './alert-module';

/** One alert that explains others: while it fires, Alertmanager holds them back. */
export interface Explanation {
  readonly source: string;
  readonly targets: readonly string[];
}

/**
 * What the alert modules say explains what, refused when the explanations loop: two alerts
 * that explain each other (or a chain back to the first) would hold each other back, and
 * when both fire nobody is paged, the opposite of one page per cause. The cause that
 * explains the most comes first (then by name): the order of the inhibit rules and their docs.
 */
export function explanationsOf(modules: readonly AlertModule[]): Explanation[] {
  const explanations = modules.flatMap((alert) => (alert.explains && alert.explains.length > 0 ? [{ source: alert.key, targets: alert.explains }] : []));
  const targetsOf = new Map(explanations.map((e) => [e.source, e.targets]));
  const loop = (from: string, path: readonly string[]): readonly string[] | undefined => {
    if (path.includes(from)) return [...path.slice(path.indexOf(from)), from];
    for (const next of targetsOf.get(from) ?? []) {
      const found = loop(next, [...path, from]);
      if (found) return found;
    }
    return undefined;
  };
  for (const { source } of explanations) {
    const found = loop(source, []);
    if (found) throw new DefectError(`the alert modules explain each other in a loop (${found.join(' explains ')}): when they fire together, Alertmanager would send none of them`);
  }
  return explanations.sort((a, b) => b.targets.length - a.targets.length || alertName(a.source).localeCompare(alertName(b.source), 'en'));
}
