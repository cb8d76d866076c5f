import type { Diagnostic } from '../validate/diagnostic';

/**
 * How much care a change needs: `safe` applies as is; `needs-migration` applies safely
 * only with the steps its text gives; `destructive` deletes records or state.
 */
export type Risk = 'safe' | 'needs-migration' | 'destructive';
export const RISKS: readonly Risk[] = ['safe', 'needs-migration', 'destructive'];

export interface PlannedChange {
  readonly risk: Risk;
  /** One sentence in operator words: what changes and what it means for records in flight. */
  readonly text: string;
  /** What Terraform does to topics, for a change of the outcome (absent for other changes). */
  readonly terraform?: TerraformChange;
}

/**
 * - `move`: a stack imports topics another stack forgets (a declared move or rename)
 * - `import`: a stack adopts an existing topic; `forget`: a stack lets go of one, which stays
 * - `delete` and `replace`: the topic and its records are gone; `update`: changed in place
 * - `blocks-dropped`: import and removed blocks leave a stack (or the stack itself goes)
 */
export type TerraformAction = 'move' | 'import' | 'forget' | 'delete' | 'replace' | 'update' | 'blocks-dropped';

export interface TerraformChange {
  readonly action: TerraformAction;
  /** The stacks involved: the one changed, or from and to for a move. */
  readonly stacks: readonly string[];
  readonly topics: readonly string[];
}

/** The changes of one consumer, or of a topology as a whole (`consumer` absent). */
export interface ChangeGroup {
  readonly topology: string;
  readonly consumer?: string;
  readonly changes: readonly PlannedChange[];
}

export interface Plan {
  /** False when generated/ has no model snapshot yet: everything is new. */
  readonly hasBaseline: boolean;
  readonly groups: readonly ChangeGroup[];
  /** Changes `krt synth` refuses until the spec says how to make them safely. */
  readonly refused: readonly Diagnostic[];
}

export function worstRisk(plan: Plan): Risk | undefined {
  const risks = new Set(plan.groups.flatMap((g) => g.changes.map((c) => c.risk)));
  return [...RISKS].reverse().find((risk) => risks.has(risk));
}
