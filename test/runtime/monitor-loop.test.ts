import { startPollLoop } from '../../src/runtime/monitor-loop';
import type { PollOutcome } from '../../src/runtime/monitor-loop';
import { eventually } from '../helpers/eventually';

/** A monitor that answers its name, or fails while `failing` says so; it records when each poll ran. */
function fakeMonitor(name: string, log: string[], failing: () => boolean = () => false) {
  return {
    name,
    async poll(): Promise<string> {
      log.push(`${name}:start`);
      await new Promise((resolve) => setTimeout(resolve, 2));
      log.push(`${name}:end`);
      if (failing()) throw new Error(`${name} cannot reach Kafka`);
      return name;
    },
  };
}

describe('the poll loop every DLQ monitor runs', () => {
  it('polls each monitor in turn, never two at once, and a failed poll neither stops the round nor the loop', async () => {
    const log: string[] = [];
    const outcomes: string[] = [];
    const monitors = [fakeMonitor('billing', log, () => true), fakeMonitor('shipping', log)];
    const loop = startPollLoop(monitors, {
      intervalMs: 5,
      onPoll: (m, outcome: PollOutcome<string>) => outcomes.push(outcome.ok ? `${m.name}: ${outcome.snapshot}` : `${m.name} failed: ${String(outcome.error)}`),
    });
    await eventually('two rounds', () => (outcomes.length >= 4 ? true : undefined));
    await loop.stop();
    expect(outcomes.slice(0, 4)).toEqual(['billing failed: Error: billing cannot reach Kafka', 'shipping: shipping', 'billing failed: Error: billing cannot reach Kafka', 'shipping: shipping']);
    // Strictly alternating starts and ends: no poll overlapped another.
    expect(log.every((entry, i) => entry.endsWith(i % 2 === 0 ? ':start' : ':end'))).toBe(true);
  });

  it('polls at once when started, keeps polling when its listener throws, and stops only after the round in flight', async () => {
    const log: string[] = [];
    const loop = startPollLoop([fakeMonitor('billing', log)], {
      intervalMs: 5,
      onPoll: () => {
        throw new Error('a listener bug');
      },
    });
    expect(log).toEqual(['billing:start']);
    await eventually('a second poll', () => (log.filter((e) => e === 'billing:start').length >= 2 ? true : undefined));
    await loop.stop();
    const polls = log.length;
    expect(log[polls - 1]).toBe('billing:end');
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(log.length).toBe(polls);
  });
});
