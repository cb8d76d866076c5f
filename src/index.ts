export { defineTopology } from './spec/define';
export type {
  AlertOverrideSpec,
  ClusterSpec,
  ConsumerSpec,
  Criticality,
  DlqSpec,
  ErrorPolicySpec,
  InPlaceRetrySpec,
  MainTopicSpec,
  OrderingStrategy,
  OwnerSpec,
  PrincipalsSpec,
  Severity,
  TierSpec,
  TopologySpec,
} from './spec/types';
export type { Duration, DurationUnit } from './duration';
export type { AlertKey } from './alerts';
export type { HeaderStyle, NamingStyle } from './naming';
