import { ALERT_MODULES } from '../alerts';
import type { AlertKey } from '../alerts';
import { CRITICALITIES } from '../spec/types';
import type { Criticality } from '../spec/types';
import type { AlertPolicy } from './types';

/**
 * Alert presets per criticality (R16), as each alert's module states them; what each
 * threshold counts is in that module too.
 */
export const CRITICALITY_PRESETS = Object.fromEntries(
  CRITICALITIES.map((criticality) => [criticality, Object.fromEntries(ALERT_MODULES.map((alert) => [alert.key, alert.presets[criticality]]))]),
) as Readonly<Record<Criticality, Readonly<Record<AlertKey, AlertPolicy>>>>;
