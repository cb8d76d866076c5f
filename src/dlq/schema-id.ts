/**
 * Confluent's wire format, which Schema Registry serializers write: magic byte 0, the
 * schema id as a 4-byte big-endian integer, then the payload (Avro, Protobuf, JSON).
 * The DLQ tools only read the id, to say which schema a dead record was written with;
 * the bytes themselves pass through every hop untouched.
 */
const MAGIC_BYTE = 0;
const HEADER_LENGTH = 5;
/** Schema Registry ids are positive Java ints. */
const MAX_SCHEMA_ID = 2 ** 31 - 1;

/** The schema id of a value framed in Confluent's wire format, or undefined when it is not framed so. */
export function confluentSchemaId(bytes: Buffer | null): number | undefined {
  if (bytes === null || bytes.length < HEADER_LENGTH || bytes[0] !== MAGIC_BYTE) return undefined;
  const id = bytes.readUInt32BE(1);
  return id > 0 && id <= MAX_SCHEMA_ID ? id : undefined;
}
