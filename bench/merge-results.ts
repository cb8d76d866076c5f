import type { BenchResults, BenchSection, SectionProvenance } from './report';

/** What the sections of one run measured. */
export type MeasuredFigures = Partial<Omit<BenchResults, 'date' | 'machine' | 'run' | 'measured'>>;

/**
 * The results after a run of `sections`: their figures and provenance replace the previous
 * run's (a note given before goes with the figures it described), and every other section
 * keeps its figures with the provenance they had, so the report can say they are older.
 */
export function mergedResults(previous: BenchResults | undefined, measured: MeasuredFigures, sections: readonly BenchSection[], provenance: SectionProvenance): BenchResults {
  return {
    ...previous,
    ...measured,
    date: provenance.run.slice(0, 10),
    machine: provenance.machine,
    run: provenance.run,
    measured: { ...previous?.measured, ...Object.fromEntries(sections.map((section) => [section, provenance])) },
  } as BenchResults;
}
