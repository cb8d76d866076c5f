/**
 * Whether a partition read from `first` is a new log: read from its very start, offset 0,
 * below a commit the broker acknowledged to this member. Only from 0: a client may hand out
 * records below the last commit after a rejoin (@platformatic/kafka after a broker outage
 * did), which the partition's progress reads past as records it finished; taken for a new
 * log, they all ran again (962 in the outage test). A recreated topic is read from 0, as
 * the group's commits went with the old one.
 */
export function isNewLog(first: bigint, acknowledged: bigint | undefined): boolean {
  return first === 0n && acknowledged !== undefined && acknowledged > 0n;
}
