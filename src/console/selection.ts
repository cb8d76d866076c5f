import { DLQ_RECORD_ID_FORMAT } from '../naming';
import { selectRecords } from '../dlq/select';
import type { DlqRecord } from '../dlq/session';
import type { Chooser, DlqSnapshot, ReadScope } from './backend';
import { byPosition, cursorOf, firstOfEachPartition } from './scan';
import { FilterError, filterOf, filterQuery, inGroup, matches, one } from './filter';
import type { Query, RecordFilter } from './filter';

/**
 * What an action acts on, as its form says: records by id, a filter's whole result, or one
 * group (error name and original topic) within a filter. Resolved again against the
 * session that acts, so a record handled meanwhile is never acted on twice.
 */
export type Selection =
  | { readonly scope: 'ids'; readonly ids: readonly string[] }
  | { readonly scope: 'filter'; readonly filter: RecordFilter; readonly limit: number }
  | { readonly scope: 'group'; readonly filter: RecordFilter; readonly group: { readonly error: string; readonly topic: string }; readonly limit: number };

/** At most this many records per action unless the form says otherwise, as `krt dlq replay` bounds --all. */
export const DEFAULT_ACTION_LIMIT = 100;

/** The most records one action of the console holds and lists; more is a job for `krt dlq replay`. */
export const MAX_ACTION_LIMIT = 10_000;

function all(query: Query, name: string): string[] {
  const value = query[name];
  return (Array.isArray(value) ? value : value === undefined ? [] : [value as string]).flatMap((v) => v.split(',')).map((v) => v.trim()).filter(Boolean);
}

export function selectionOf(query: Query): Selection {
  const scope = one(query, 'scope') ?? 'ids';
  const limitText = one(query, 'limit');
  const limit = limitText === undefined ? DEFAULT_ACTION_LIMIT : Number(limitText);
  if (!Number.isInteger(limit) || limit < 1) throw new FilterError(`"at most" takes a whole number of records above 0, not '${limitText}'`);
  if (limit > MAX_ACTION_LIMIT) throw new FilterError(`the console acts on at most ${MAX_ACTION_LIMIT} records at a time (it holds them while it acts); select fewer, or use krt dlq replay --limit from the terminal`);
  if (scope === 'ids') {
    const ids = all(query, 'ids');
    if (ids.length === 0) throw new FilterError(`select records first: tick them in the list (ids look like ${DLQ_RECORD_ID_FORMAT})`);
    if (ids.length > MAX_ACTION_LIMIT) throw new FilterError(`the console acts on at most ${MAX_ACTION_LIMIT} records at a time (it holds them while it acts), not ${ids.length}; select fewer, or use krt dlq replay --limit from the terminal`);
    return { scope, ids };
  }
  if (scope === 'filter') return { scope, filter: filterOf(query), limit };
  if (scope === 'group') {
    const error = one(query, 'group_error');
    const topic = one(query, 'group_topic');
    if (error === undefined || topic === undefined) throw new FilterError('a group is named by its error name and original topic');
    return { scope, filter: filterOf(query), group: { error, topic }, limit };
  }
  throw new FilterError(`unknown selection '${scope}'`);
}

function wanted(selection: Selection): (r: DlqRecord) => boolean {
  if (selection.scope === 'ids') {
    const ids = new Set(selection.ids);
    return (r) => ids.has(r.id);
  }
  return (r) => matches(selection.filter, r) && (selection.scope === 'filter' || inGroup(r, selection.group));
}

/** The records a selection names in this snapshot, in partition and offset order; unknown ids are an error (selectRecords). */
export function resolveSelection(snapshot: DlqSnapshot, selection: Selection): DlqRecord[] {
  if (selection.scope === 'ids') return selectRecords(snapshot.records, { ids: selection.ids });
  return snapshot.records.filter(wanted(selection)).sort(byPosition).slice(0, selection.limit);
}

/**
 * Where a selection's records can be: ids name their partitions and offsets, so only those
 * partitions are read, from the lowest id to the highest; a filter or group reads everything.
 */
function selectionScope(selection: Selection): ReadScope {
  if (selection.scope !== 'ids') return {};
  const bounds = new Map<number, { low: bigint; high: bigint }>();
  for (const id of selection.ids) {
    const at = cursorOf(id);
    // An id that is no id is refused when the selection is resolved (selectRecords).
    if (!at) return {};
    const b = bounds.get(at.partition);
    bounds.set(at.partition, b ? { low: at.offset < b.low ? at.offset : b.low, high: at.offset > b.high ? at.offset : b.high } : { low: at.offset, high: at.offset });
  }
  return { from: (p) => bounds.get(p)?.low, enough: (p, position) => position > (bounds.get(p)?.high ?? -1n) };
}

/** Reads keeping only what the selection can name (at most `limit` of each partition), then resolves it. */
export function selectionChooser(selection: Selection): Chooser {
  const want = wanted(selection);
  return {
    keep: selection.scope === 'ids' ? want : firstOfEachPartition(selection.limit, want),
    scope: selectionScope(selection),
    choose: (snapshot) => resolveSelection(snapshot, selection),
  };
}

/** The selection as hidden form values (a dry run's actions carry the ids it listed: they act on what it showed, or fewer). */
export function selectionFields(selection: Selection): Record<string, string | undefined> {
  if (selection.scope === 'ids') return { scope: 'ids', ids: selection.ids.join(',') };
  const common = { ...filterQuery(selection.filter), limit: String(selection.limit) };
  return selection.scope === 'filter' ? { scope: 'filter', ...common } : { scope: 'group', ...common, group_error: selection.group.error, group_topic: selection.group.topic };
}

/** One phrase for the selection, for the dry run's heading and the action's result. */
export function describeSelection(selection: Selection): string {
  if (selection.scope === 'ids') return `${selection.ids.length} selected record${selection.ids.length === 1 ? '' : 's'}`;
  const within = Object.values(filterQuery(selection.filter)).some((v) => v !== undefined) ? ' matching the filter' : '';
  if (selection.scope === 'filter') return `every record${within} (at most ${selection.limit})`;
  return `the group ${selection.group.error} from ${selection.group.topic}${within} (at most ${selection.limit})`;
}
