/**
 * The topic's id in an admin's metadata answer (Kafka gives each topic one at creation; a
 * topic deleted and created again under its name gets another), or undefined where the answer
 * carries none: kafkajs 2.2.4 sends Metadata v6 at most and reads no ids (they came with v10);
 * the krt commands read them through the Confluent client where it is installed
 * (src/connection/topic-ids.ts).
 */
export function topicIdIn(metadata: { readonly topics: readonly { readonly name: string }[] }, topic: string): string | undefined {
  const id = (metadata.topics.find((t) => t.name === topic) as { topicId?: unknown } | undefined)?.topicId;
  return typeof id === 'string' ? normalTopicId(id, topic) : undefined;
}

/**
 * A topic id as any client spells it, in Kafka's spelling (kafkaSpelling), or undefined where
 * it names none: librdkafka answers `{ base64 }` (its typings say `base64str`) in standard
 * base64, @platformatic/kafka a hyphenated hex UUID. The all-zero id is Kafka's "none" (a broker
 * before topic ids), and @platformatic/kafka puts the topic's name where an older answer has no
 * id: neither is an id, so neither may be taken for a topic created again.
 */
export function normalTopicId(raw: unknown, topic?: string): string | undefined {
  const text = typeof raw === 'object' && raw !== null ? ((raw as { base64?: unknown }).base64 ?? (raw as { base64str?: unknown }).base64str) : raw;
  if (typeof text !== 'string' || text === '' || text === topic) return undefined;
  const id = HEX_UUID.test(text) ? Buffer.from(text.replace(/-/g, ''), 'hex').toString('base64url') : kafkaSpelling(text);
  return /^A+$/.test(id) ? undefined : id;
}

const HEX_UUID = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;

/**
 * A topic id as Kafka's tools print it (URL-safe base64, no padding): librdkafka, through
 * which krt reads ids, spells the same id in standard base64 (`+` and `/`), and Java clients
 * in the URL-safe one, so ids are compared, and written, in one spelling.
 */
export function kafkaSpelling(id: string): string {
  // Most ids are spelled alike in both (a fold asks for every entry's): only those of the other spelling are made anew.
  return /[+/=]/.test(id) ? id.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '') : id;
}
