import zlib from 'node:zlib';
import { CompressionCodecs, CompressionTypes } from 'kafkajs';

/**
 * kafkajs decodes gzip only: a batch compressed with zstd, lz4 or snappy (a Java producer's
 * choice, or a broker's or topic's `compression.type`, which has the broker recompress every
 * batch) throws KafkaJSNotImplemented, and krt's DLQ tools could not read such a DLQ at all.
 * Node 22.15 and newer compress zstd themselves (node:zlib): that codec is registered with
 * kafkajs here, once, unless the process registered one of its own. lz4 and snappy stay
 * unread (explainKafkaError says so and what to do).
 */
export function registerZstdCodec(): void {
  const zstdCompress = (zlib as { zstdCompress?: typeof zlib.gzip }).zstdCompress;
  const zstdDecompress = (zlib as { zstdDecompress?: typeof zlib.unzip }).zstdDecompress;
  if (zstdCompress === undefined || zstdDecompress === undefined) return;
  const codecs = CompressionCodecs as unknown as Record<number, () => unknown>;
  const current = codecs[CompressionTypes.ZSTD];
  try {
    current?.();
    if (current !== undefined) return;
  } catch {
    // kafkajs's own entry throws "ZSTD compression not implemented": replaced below.
  }
  const run = (f: typeof zlib.gzip, data: Buffer) => new Promise<Buffer>((resolve, reject) => f(data, (error, out) => (error ? reject(error) : resolve(out))));
  codecs[CompressionTypes.ZSTD] = () => ({
    compress: (encoder: { buffer: Buffer }) => run(zstdCompress, encoder.buffer),
    decompress: (buffer: Buffer) => run(zstdDecompress, buffer),
  });
}

/** kafkajs's KafkaJSNotImplemented for a batch it cannot decode: the codec's name, else undefined. */
export function unreadCodecOf(error: { readonly name?: string; readonly message?: string }): string | undefined {
  if (error.name !== 'KafkaJSNotImplemented') return undefined;
  return /^(\w+) compression not implemented/i.exec(error.message ?? '')?.[1]?.toLowerCase();
}
