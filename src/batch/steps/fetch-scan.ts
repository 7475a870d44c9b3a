// Step: the period's scan for the scan sections (src/sections): the project's scans listed, the one the month rule
// picks read with `include` and `seo_steps` limited to what the sections shown need (asked again without
// `seo_steps` if the service refuses it: sections/scan-ask.ts). Read once a period: an earlier run's data.json is
// read back instead. No section on, no request. A scan that cannot be read leaves its sections out, not the report.
import { InvalidRequestError, NotFoundError, ResponseValidationError } from '../../api/errors.js';
import { errorMessage } from '../../errors.js';
import { isRecord } from '../../spec/find.js';
import { scanOfPeriod } from '../../sections/scan.js';
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
    // A listing or a scan the service refuses or sends in a form not read leaves the sections out, not the report.
    const unreadable = (what: string, error: unknown): boolean => {
      if (!(error instanceof NotFoundError || error instanceof InvalidRequestError || error instanceof ResponseValidationError)) throw error;
      work.notes.push(`${what} could not be read (${errorMessage(error)}); the scan sections are left out.`);
      return true;
    };
    let list;
    try {
      list = await gate(() => client.listScans(project.id));
    } catch (error) {
      return unreadable(`The scans of project ${project.id}`, error);
    }
    if (list === null) {
      state.markPending(entry, state.stops.stopReason());
      return false;
    }
    const choice = scanOfPeriod(list.scans, period);
    if (choice === null) return true; // the assembly notes the sections left out
    let asked;
    try {
      asked = await ctx.scanAsk.read(
        sections,
        (options) => gate(() => client.getScanData({ id: choice.id }, options)),
        // A refused seo_steps costs one more request than the plan counted: the plan counts it, the budget takes it.
        () => ctx.countScanRetry(project.id),
      );
    } catch (error) {
      // The listed scan is gone or cannot be read: its sections are left out, never the report.
      return unreadable(`Scan ${choice.id} listed for ${period}`, error);
    }
    if (asked === null) {
      state.markPending(entry, state.stops.stopReason());
      return false;
    }
    const { include, seoSteps, data: answer } = asked;
    work.scan = { id: choice.id, date: choice.date, include, seoSteps, data: isRecord(answer) ? answer : {} };
    return true;
  },
};
