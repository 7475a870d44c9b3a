// The batch's own steps on data already read: assemble → render HTML (→ print PDF), into a folder of the caller's.
// The preview and the sample check make reports this way, never by a second path.
import { writesDone, type ProjectStep, type ProjectWork, type RenderContext, type WriteFile } from '../batch/pipeline.js';
import { assemble } from '../batch/steps/assemble.js';
import { printPdf } from '../batch/steps/print-pdf.js';
import { renderHtml } from '../batch/steps/render-html.js';
import { writeFileAtomic } from '../output/store.js';
import type { ProjectData } from './data.js';

/** The steps of the preview's page, and of its PDF. */
export const PAGE_STEPS: readonly ProjectStep<RenderContext>[] = [assemble, renderHtml];
export const PDF_STEPS: readonly ProjectStep<RenderContext>[] = [assemble, renderHtml, printPdf];
export const MODEL_STEPS: readonly ProjectStep<RenderContext>[] = [assemble];

/** What a render needs besides the project's own data. */
type RenderSetting = Omit<RenderContext, 'shared' | 'earlier' | 'writeFile'> & {
  /** @default writeFileAtomic, as the batch writes */
  writeFile?: WriteFile;
};

/** Runs `steps` on the project; resolves once every file they write is written. */
export async function runSteps(data: ProjectData, setting: RenderSetting, steps: readonly ProjectStep<RenderContext>[]): Promise<ProjectWork> {
  const ctx: RenderContext = { ...setting, writeFile: setting.writeFile ?? writeFileAtomic, shared: data.shared, earlier: data.earlier };
  const { work } = data;
  try {
    for (const step of steps) {
      // These steps never wait for a later run; one that did would be a pipeline made for the API lane.
      if (!(await step.run(work, ctx))) throw new Error(`The "${step.name}" step stopped without making its part.`);
    }
  } finally {
    await writesDone(work);
  }
  return work;
}
