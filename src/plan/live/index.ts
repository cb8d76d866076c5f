export { compareLive, liveQuery } from './compare';
export type { LiveFinding, LiveOptions } from './compare';
export { readClusterState } from './cluster-state';
export type { ClusterState } from './cluster-state';
export { formatLive, liveJson } from './format';
