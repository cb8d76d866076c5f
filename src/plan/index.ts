export { planChanges } from './plan';
export { guardChanges } from './guards';
export { readBaseline } from './baseline';
export { withUntouched } from './partial';
export { withRemovedStacks } from './removed-stacks';
export { judgeOutcome } from './outcome';
export { formatPlan, planJson } from './format';
export { worstRisk } from './types';
export type { ChangeGroup, Plan, PlannedChange, Risk, TerraformAction, TerraformChange } from './types';
