import type { ConsumerModel } from '../model/types';

/**
 * Park-by-key keeps a key's order in the state of the partition the key hashes to: with
 * more partitions, a key's new records land elsewhere and run before its records still
 * held in the tiers.
 */
export function grownUnderParking(old: { name: string; partitions: number }, current: { partitions: number }, readers: readonly ConsumerModel[]): string {
  const names = readers.map((c) => `'${c.name}'`).join(', ');
  return `'${old.name}' grows from ${old.partitions} to ${current.partitions} partitions, and park-by-key consumer ${names} reads it: keys move to other partitions, so their new records run before those still parked or waiting in the tiers; stop the consumers and let the tiers drain (\`krt plan --live\` reports them empty) before growing it`;
}
