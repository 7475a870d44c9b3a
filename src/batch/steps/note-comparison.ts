// Step: what the agency should know about a report's comparison figures (benchmark, percentile), as notes.
import type { ProjectStep } from '../pipeline.js';

export const noteComparison: ProjectStep = {
  name: 'note comparison',
  lane: 'print',
  async run(work, ctx) {
    // A report without scores shows no comparison: nothing to say.
    if (work.model?.scores == null) return true;
    const row = work.ranking?.row ?? null;
    if (ctx.shared.competitors === null) {
      work.notes.push('Benchmark and percentile not available: the competitors answer could not be read.');
      return true;
    }
    if (row === null) work.notes.push('This project has no row in the competitors answer: percentile and gap to the benchmark not available.');
    else if (row.percentile === null) work.notes.push("Percentile not found in this project's competitors row.");
    if (work.ranking?.benchmark.geo?.average == null) work.notes.push('Benchmark average (GEO) not found in the competitors answer.');
    return true;
  },
};
