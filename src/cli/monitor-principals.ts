import type { TopologyModel } from '../model/types';
import { principalName } from '../naming';

/**
 * What `krt monitor` says before its first poll when it runs as a principal that is not the
 * monitor principal of every topology it monitors: each topology has its own by default
 * (`User:<topology>-monitor`), whose ACLs alone let it read that topology's topics, so the
 * others' polls would fail every time (`/healthz` 503, KafkaRetryMonitorDown) with no word
 * on why until the first error. Nothing when every topology names this one, or when the user
 * is not a SASL user name krt can compare (no username set).
 */
export function monitorPrincipalWarning(topologies: readonly TopologyModel[], username: string | undefined): string | undefined {
  if (!username) return undefined;
  const others = topologies.filter((t) => principalName(t.principals.monitor) !== username);
  if (others.length === 0) return undefined;
  const named = others.map((t) => `${t.name} (${t.principals.monitor})`).join(', ');
  return (
    `krt monitor: runs as ${username}, which is not the monitor principal of ${named}: ` +
    `the generated ACLs let each topology's monitor principal read its topics only, so those polls will fail; ` +
    `run one monitor per topology naming its file (krt monitor topologies/<name>.ts) as its principal, ` +
    `or give the topologies one shared principals.monitor in their specs (docs/monitoring.md)\n`
  );
}
