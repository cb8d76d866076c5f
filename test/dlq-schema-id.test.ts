import { recordJson } from '../src/dlq/inspect';
import { replayRecords } from '../src/dlq/replay';
import { replayRoute } from '../src/dlq/replay-route';
import { confluentSchemaId } from '../src/dlq/schema-id';
import { DlqSession } from '../src/dlq/session';
import { HEADERS } from '../src/naming/headers';
import { aConsumer, aTopology, compile } from './helpers/specs';
import { DlqKafkaDouble } from './runtime/dlq-kafka-double';

const clock = { now: () => 0, sleep: async () => {} };

/** Confluent's wire format: magic byte 0, schema id 4 bytes big-endian, payload. */
const framed = (schemaId: number, payload: Buffer) => Buffer.concat([Buffer.from([0]), Buffer.from([schemaId >>> 24, (schemaId >>> 16) & 0xff, (schemaId >>> 8) & 0xff, schemaId & 0xff]), payload]);
/** An Avro-like payload that is not valid UTF-8. */
const AVRO = Buffer.from([0x02, 0xc3, 0x28, 0xff, 0xfe, 0x00, 0x80]);
/** A framed JSON Schema payload: every byte valid UTF-8, still binary by format. */
const JSON_FRAMED = framed(7, Buffer.from('{"orderId":"o-1"}'));
const BINARY_KEY = Buffer.from([0xde, 0xad, 0xbe, 0xef]);

describe('the schema id of a Schema Registry-framed value', () => {
  it('is read from the magic byte and the big-endian id, and only from a value framed so', () => {
    expect(confluentSchemaId(framed(100_042, AVRO))).toBe(100_042);
    expect(confluentSchemaId(Buffer.from('{"plain":"json"}'))).toBeUndefined();
    expect(confluentSchemaId(Buffer.from([0, 0, 0]))).toBeUndefined();
    expect(confluentSchemaId(null)).toBeUndefined();
  });

  it('shows in krt dlq inspect --json, with the bytes as base64 that decodes to the very bytes, and survives a replay byte for byte', async () => {
    const consumer = compile(aTopology({ consumers: [aConsumer()] })).model!.topologies[0]!.consumers[0]!;
    const double = new DlqKafkaDouble();
    for (const topic of [consumer.mainTopic, ...consumer.tiers, consumer.dlq, consumer.dlqAudit]) double.createTopic(topic.name, topic.partitions);
    const binaryHeader = Buffer.from([0x00, 0xff, 0xc3]);
    const failure = { [HEADERS.originalTopic]: consumer.mainTopic.name, [HEADERS.originalPartition]: '0', [HEADERS.originalOffset]: '0', [HEADERS.errorClass]: 'DeserializationError', 'trace-bin': binaryHeader };
    double.append(consumer.dlq.name, 0, { key: BINARY_KEY, value: framed(42, AVRO), headers: failure });
    double.append(consumer.dlq.name, 0, { key: 'order-2', value: JSON_FRAMED, headers: failure });

    const session = await DlqSession.open(double.kafka(), consumer);
    const [avro, json] = session.records.map(recordJson);
    expect(avro).toMatchObject({ valueSchemaId: 42, valueEncoding: 'base64', keyEncoding: 'base64', errorClass: 'DeserializationError' });
    expect(Buffer.from(avro!.value!, 'base64').equals(framed(42, AVRO))).toBe(true);
    expect(Buffer.from(avro!.key!, 'base64').equals(BINARY_KEY)).toBe(true);
    expect(json).toMatchObject({ valueSchemaId: 7, valueEncoding: 'base64' });
    expect(Buffer.from(json!.value!, 'base64').equals(JSON_FRAMED)).toBe(true);

    await replayRecords(double.kafka(), session, session.records, { route: replayRoute(consumer), rate: 100, by: 'tester', clock });
    await session.close();
    const replayed = double.messages(consumer.tiers[0]!.name);
    expect(replayed.map((m) => [m.key, m.value])).toEqual([
      [BINARY_KEY, framed(42, AVRO)],
      [Buffer.from('order-2'), JSON_FRAMED],
    ]);
    expect(Buffer.isBuffer(replayed[0]!.headers['trace-bin']) && (replayed[0]!.headers['trace-bin'] as Buffer).equals(binaryHeader)).toBe(true);
  });
});
