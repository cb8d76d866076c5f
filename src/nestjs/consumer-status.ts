import type { DlqSnapshot, RetryEvent } from '../runtime';

/** What the health indicator reports of one consumer. */
export interface ConsumerHealth {
  /** Started and not stopping: its members are in their groups. */
  readonly connected: boolean;
  /** Tier partitions paused until their head record is due, as `topic/partition`. */
  readonly waitingPartitions: readonly string[];
  /** Park-by-key main partitions paused because their parking state is full. */
  readonly parkingFullPartitions: readonly string[];
  /** A record whose publish to a tier or the DLQ the broker keeps refusing; it stays uncommitted meanwhile. */
  readonly publishFailing?: { readonly since: string; readonly topic: string; readonly partition: number; readonly offset: string; readonly error: string };
  /** The DLQ monitor's last reading, when the module runs it. */
  readonly dlq?: { readonly size?: number; readonly oldestUnhandledAt?: string; readonly polledAt?: string; readonly error?: string };
}

const partitionId = (topic: string, partition: number) => `${topic}/${partition}`;
const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** One consumer's state, derived from the runtime's events and the DLQ monitor's polls. */
export class ConsumerStatus {
  private connected = false;
  private readonly waitingUntil = new Map<string, number>();
  private readonly parkingFull = new Set<string>();
  private publishFailing?: ConsumerHealth['publishFailing'];
  private dlq?: ConsumerHealth['dlq'];

  constructor(private readonly now: () => number = Date.now) {}

  setConnected(connected: boolean): void {
    this.connected = connected;
  }

  observe(event: RetryEvent): void {
    switch (event.type) {
      case 'waiting':
        this.waitingUntil.set(partitionId(event.topic, event.partition), event.dueAt);
        break;
      case 'parking-full':
        this.parkingFull.add(partitionId(event.topic, event.partition));
        break;
      case 'publish-failed': {
        const { topic, partition, message } = event.record;
        this.publishFailing = { since: this.publishFailing?.since ?? new Date(this.now()).toISOString(), topic, partition, offset: message.offset, error: messageOf(event.error) };
        break;
      }
      case 'routed':
        this.publishFailing = undefined;
        break;
      case 'processed':
      case 'unparked':
        // A key's retry ended, so its main partition has room again.
        for (const id of this.parkingFull) if (id.endsWith(`/${event.record.partition}`)) this.parkingFull.delete(id);
        break;
    }
  }

  observeDlq(snapshot: DlqSnapshot): void {
    this.dlq = {
      size: snapshot.dlqSize,
      oldestUnhandledAt: snapshot.oldestUnhandledAt === undefined ? undefined : new Date(snapshot.oldestUnhandledAt).toISOString(),
      polledAt: new Date(this.now()).toISOString(),
    };
  }

  observeDlqError(error: unknown): void {
    this.dlq = { ...this.dlq, error: messageOf(error) };
  }

  health(): ConsumerHealth {
    const now = this.now();
    return {
      connected: this.connected,
      waitingPartitions: [...this.waitingUntil].filter(([, dueAt]) => dueAt > now).map(([id]) => id).sort(),
      parkingFullPartitions: [...this.parkingFull].sort(),
      ...(this.publishFailing && { publishFailing: this.publishFailing }),
      ...(this.dlq && { dlq: this.dlq }),
    };
  }
}

/** Healthy: in its groups and able to publish; waiting partitions and a full DLQ are the alerts' business. */
export const isHealthy = (health: ConsumerHealth): boolean => health.connected && health.publishFailing === undefined;
