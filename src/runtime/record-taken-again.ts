/**
 * Ends a publish loop whose record was taken again: its partition was revoked by a
 * rebalance, or sought back. The record runs again where it is read next (by this member
 * or the partition's new owner); thrown out of eachMessage, the client delivers it again.
 */
export class RecordTakenAgain extends Error {
  override name = 'KafkaRetryRecordTakenAgain';
  constructor() {
    super('the record was taken again (a rebalance or a seek): it runs again where it is read next');
  }
}
