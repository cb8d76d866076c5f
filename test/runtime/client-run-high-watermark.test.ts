import { clientRunOptions } from '../../src/runtime/adapters/client-run';
import type { ClientBatchPayload } from '../../src/runtime/adapters/client-run';
import type { EachBatchPayload } from '../../src/runtime/port';

/** The batch the runtime is handed for a client batch whose high watermark is `highWatermark`. */
async function handed(highWatermark: string | undefined): Promise<EachBatchPayload> {
  let seen: EachBatchPayload | undefined;
  const run = clientRunOptions({ eachBatch: async (batch) => void (seen = batch) });
  const payload: ClientBatchPayload = {
    batch: { topic: 't', partition: 0, messages: [{ key: null, value: null, offset: '4', timestamp: '0', headers: {} }], ...(highWatermark === undefined ? {} : { highWatermark }) },
    resolveOffset: () => undefined,
    heartbeat: async () => undefined,
    isRunning: () => true,
    isStale: () => false,
  };
  await run.eachBatch!(payload);
  return seen!;
}

describe('the high watermark a client batch carries, as the runtime is handed it', () => {
  it('is passed on when the client tells it (kafkajs, the Confluent client)', async () => {
    expect((await handed('7')).highWatermark).toBe('7');
  });

  it('is left out when the client does not know it: the Confluent client says -1001, which would read as a log ending before every record', async () => {
    expect((await handed('-1001')).highWatermark).toBeUndefined();
    expect((await handed(undefined)).highWatermark).toBeUndefined();
  });
});
