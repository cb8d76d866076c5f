/**
 * The Alertmanager inhibit rules come from each alert module's `explains`.
 * An alert that explains another mutes it while both fire. Nothing stops two modules from
 * explaining each other (directly or through a chain): then, when both fire, Alertmanager
 * mutes both and nobody is paged, the opposite of "one page per cause".
 */
import type { AlertModule } from '../src/alerts';
import { ALERT_MODULES, explanationsOf } from '../src/alerts';
import { ALERTS } from '../src/alerts';
import type { AlertKey } from '../src/alerts';
import { aConsumer, aTopology, compile } from './helpers/specs';

interface InhibitRule {
  readonly source_matchers: readonly string[];
  readonly target_matchers: readonly string[];
  readonly equal: readonly string[];
}
type Labels = Readonly<Record<string, string>>;

/** An Alertmanager matcher of the two forms the generated rules use: `l="v"` and `l=~"a|b"`. */
function matches(matcher: string, labels: Labels): boolean {
  const [, label, op, value] = /^(\w+)(=~|=)"(.*)"$/.exec(matcher)!;
  const actual = labels[label!] ?? '';
  return op === '=' ? actual === value : new RegExp(`^(?:${value})$`).test(actual);
}
const all = (matchers: readonly string[], labels: Labels) => matchers.every((m) => matches(m, labels));

/**
 * The alerts Alertmanager still sends, as its inhibitor decides: an alert is muted when a rule's
 * target matches it and another firing alert matches the source with the `equal` labels equal;
 * an alert that matches both sides is never muted by one that also does (itself included).
 */
function paged(rules: readonly InhibitRule[], firing: readonly Labels[]): Labels[] {
  return firing.filter(
    (target) =>
      !rules.some((rule) => {
        if (!all(rule.target_matchers, target)) return false;
        const twoSided = all(rule.source_matchers, target);
        return firing.some(
          (source) =>
            all(rule.source_matchers, source) && rule.equal.every((l) => source[l] === target[l]) && !(twoSided && all(rule.target_matchers, source)),
        );
      }),
  );
}

/** Every non-empty set of the consumer's alerts that can fire together. */
function firingSets(keys: readonly AlertKey[], consumer: string): Labels[][] {
  const sets: Labels[][] = [];
  for (let mask = 1; mask < 1 << keys.length; mask++) {
    sets.push(keys.filter((_, i) => mask & (1 << i)).map((key) => ({ alertname: ALERTS[key], consumer })));
  }
  return sets;
}

/** The inhibit rules `krt synth` writes for one consumer, from the given list of alert modules. */
function inhibitRulesFrom(modules: readonly AlertModule[]): readonly InhibitRule[] {
  let rules: readonly InhibitRule[] = [];
  jest.isolateModules(() => {
    jest.doMock('../src/alerts', () => ({ ...jest.requireActual('../src/alerts'), ALERT_MODULES: modules }));
    const { inhibitRulesDocument } = require('../src/emitters/prometheus/inhibit-rules') as typeof import('../src/emitters/prometheus/inhibit-rules');
    rules = inhibitRulesDocument(compile(aTopology({ consumers: [aConsumer()] })).model!.topologies[0]!).inhibit_rules;
  });
  jest.dontMock('../src/alerts');
  return rules;
}

const KEYS = ALERT_MODULES.map((alert) => alert.key);

describe('the inhibit rules the alert modules make', () => {
  it('page at least once, whatever set of one consumer’s alerts fires together', () => {
    const rules = inhibitRulesFrom(ALERT_MODULES);
    const silent = firingSets(KEYS, 'billing-order-confirmed').filter((firing) => paged(rules, firing).length === 0);
    expect(silent.map((firing) => firing.map((a) => a.alertname))).toEqual([]);
  });

  // A list in which the main-topic lag explains consumer-down (while consumer-down explains
  // the lag) would mute both when both fire: it is refused, naming the loop (review of #24).
  it('refuse a list in which two alerts explain each other, which would mute both when both fire', () => {
    const cyclic = ALERT_MODULES.map((alert) => (alert.key === 'mainConsumerLag' ? { ...alert, explains: ['consumerDown'] as const } : alert));
    expect(() => inhibitRulesFrom(cyclic)).toThrow(/explain each other in a loop \((mainConsumerLag explains consumerDown explains mainConsumerLag|consumerDown explains mainConsumerLag explains consumerDown)\)/);
  });

  it('refuse a loop through a chain of three alerts too', () => {
    const chained = ALERT_MODULES.map((alert) => (alert.key === 'retryTierStuck' ? { ...alert, explains: ['dlqBacklog'] as const } : alert.key === 'dlqNewMessages' ? { ...alert, explains: ['consumerDown'] as const } : alert));
    expect(() => explanationsOf(chained)).toThrow(/in a loop/);
  });
});
