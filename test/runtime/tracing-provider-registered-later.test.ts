import { trace } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { consumerDescriptor } from '../../src/model/consumer-descriptor';
import { aConsumer, aTopology, compile } from '../helpers/specs';
import { harness } from './harness';

const model = compile(aTopology({ consumers: [aConsumer({ ladder: ['1m'] })] })).model!.topologies[0]!.consumers[0]!;
const consumer = consumerDescriptor(model);

describe('a tracer provider registered after the consumer started', () => {
  afterAll(() => trace.disable());

  it('traces the records handled from then on, and none before', async () => {
    const exporter = new InMemorySpanExporter();
    const h = harness(consumer, async () => {});
    h.produce('order-1', 'before', 0);
    await h.retrying.start();
    await h.broker.run();
    expect(exporter.getFinishedSpans()).toEqual([]);

    new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }).register();
    h.produce('order-2', 'after', 0);
    await h.broker.run();
    await h.retrying.stop();

    const spans = exporter.getFinishedSpans();
    expect(spans.map((s) => s.name)).toEqual([`process ${consumer.mainTopic}`]);
    expect(spans[0]!.attributes['messaging.kafka.message.key']).toBe('order-2');
  });
});
