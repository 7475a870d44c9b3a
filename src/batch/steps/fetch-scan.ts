// Step: the period's scan for the scan sections (src/sections): the project's scans listed, the one the month rule
// picks read with `include` and `seo_steps` limited to what the sections shown need. Read once a period: an
// earlier run's data.json is read back instead. No section on, no request.
import { NotFoundError } from '../../api/errors.js';
import { isRecord } from '../../spec/find.js';
import { scanOfPeriod, scanRequest } from '../../sections/scan.js';
import type { ProjectStep } from '../pipeline.js';
import { covers, savedScan } from '../scan-reads.js';
import { scanSectionsOn } from '../sections.js';

export const fetchScan: ProjectStep = {
  name: 'fetch scan',
  lane: 'api',
  async run(work, ctx) {
    const { client, config, state, period } = ctx;
    const { project, entry } = work;
    const sections = scanSectionsOn(config, project.id);
    work.scan = null;
    if (sections.length === 0) return true;
    const saved = await savedScan(ctx.periodDir, entry);
    if (saved !== null && covers(saved, sections)) {
      work.scan = saved;
      return true;
    }
    const gate = <T>(request: () => Promise<T>): Promise<T | null> => ctx.lanes.api(async () => (state.stops.stopSending() ? null : request()));
    const list = await gate(() => client.listScans(project.id));
    if (list === null) {
      state.markPending(entry, state.stops.stopReason());
      return false;
    }
    const choice = scanOfPeriod(list.scans, period);
    if (choice === null) return true; // the assembly notes the sections left out
    const { include, seoSteps } = scanRequest(sections);
    let answer;
    try {
      answer = await gate(() => client.getScan({ id: choice.id }, { include, ...(seoSteps.length === 0 ? {} : { seoSteps }) }));
    } catch (error) {
      // The listed scan is gone: its sections are left out, never the report.
      if (error instanceof NotFoundError) {
        work.notes.push(`Scan ${choice.id} listed for ${period} could not be read (not found); its sections are left out.`);
        return true;
      }
      throw error;
    }
    if (answer === null) {
      state.markPending(entry, state.stops.stopReason());
      return false;
    }
    work.scan = { id: choice.id, date: choice.date, include, seoSteps, data: isRecord(answer) ? answer : {} };
    return true;
  },
};
