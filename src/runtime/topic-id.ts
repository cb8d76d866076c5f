/**
 * The topic's id in an admin's metadata answer (Kafka gives each topic one at creation; a
 * topic deleted and created again under its name gets another), or undefined where the answer
 * carries none: kafkajs 2.2.4 sends Metadata v6 at most and reads no ids (they came with v10);
 * the krt commands read them through the Confluent client where it is installed
 * (src/connection/topic-ids.ts).
 */
export function topicIdIn(metadata: { readonly topics: readonly { readonly name: string }[] }, topic: string): string | undefined {
  const id = (metadata.topics.find((t) => t.name === topic) as { topicId?: unknown } | undefined)?.topicId;
  // The all-zero id is Kafka's "none" (a broker before topic ids).
  return typeof id === 'string' && id !== '' && !/^A+=*$/.test(id) ? kafkaSpelling(id) : undefined;
}

/**
 * A topic id as Kafka's tools print it (URL-safe base64, no padding): librdkafka, through
 * which krt reads ids, spells the same id in standard base64 (`+` and `/`), and Java clients
 * in the URL-safe one, so ids are compared, and written, in one spelling.
 */
export function kafkaSpelling(id: string): string {
  // Most ids are spelled alike in both (a fold asks for every entry's): only those of the other spelling are made anew.
  return /[+/=]/.test(id) ? id.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '') : id;
}
