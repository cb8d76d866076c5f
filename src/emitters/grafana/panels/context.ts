import type { ConsumerModel } from '../../../model/types';
import type { RunbookLocation } from '../links';
import type { QueryScope } from '../promql';

/** What the panels of one consumer's row are built from. */
export interface PanelContext {
  readonly consumer: ConsumerModel;
  readonly scope: QueryScope;
  readonly runbook: RunbookLocation;
}
