/**
 * Errors as the Confluent client's KafkaJS API builds them from a librdkafka error code
 * (`lib/kafkajs/_error.js`, KafkaJSProtocolError), without loading the client: its native
 * binding is built for one Node line only, and the runtime's suites run on three. A code with
 * two names in librdkafka's table (14, 15, 16: the coordinator's) gets type -1, ERR_UNKNOWN's
 * value, instead of a name. test/kafka/confluent-errors-match-the-client.test.ts holds these to the
 * installed client's own class.
 */
export const CONFLUENT_TYPES: Readonly<Record<number, string | number>> = {
  3: 'ERR_UNKNOWN_TOPIC_OR_PART',
  7: 'ERR_REQUEST_TIMED_OUT',
  14: -1,
  15: -1,
  16: -1,
  22: 'ERR_ILLEGAL_GENERATION',
  25: 'ERR_UNKNOWN_MEMBER_ID',
  27: 'ERR_REBALANCE_IN_PROGRESS',
  [-142]: 'ERR__ASSIGNMENT_LOST',
  [-180]: 'ERR__WAIT_COORD',
  [-185]: 'ERR__TIMED_OUT',
  [-187]: 'ERR__ALL_BROKERS_DOWN',
  [-195]: 'ERR__TRANSPORT',
};

/** The Confluent client's error for a librdkafka error of `code` (one of CONFLUENT_TYPES). */
export function confluentError(code: number, message = `librdkafka error ${code}`): Error {
  if (!(code in CONFLUENT_TYPES)) throw new Error(`no Confluent error shape known for code ${code}: add it to CONFLUENT_TYPES`);
  return Object.assign(new Error(message), { name: 'KafkaJSProtocolError', code, type: CONFLUENT_TYPES[code], retriable: false, fatal: false, abortable: false });
}
