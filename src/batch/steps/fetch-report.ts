// Step: ask the service for the report (or read back the one asked for earlier) and wait until it can be used.
import { REPORT_SECTIONS, type Report, type ReportSection } from '../../api/schemas.js';
import type { ReportVerdict } from '../../api/client.js';
import type { Config } from '../../config/schema.js';
import { Reading } from '../../content/reading.js';
import { answerAsKept, readReport, type ReportContent } from '../../content/report.js';
import { GeoReportsError } from '../../errors.js';
import { savedScan, scanReads } from '../scan-reads.js';
import { sectionSwitches } from '../sections.js';
import type { ProjectStep, ReadReport } from '../pipeline.js';

export const fetchReport: ProjectStep = {
  name: 'fetch report',
  lane: 'api',
  async run(work, ctx) {
    const { client, config, state } = ctx;
    const { project, entry } = work;
    const include = includedSections(config, project.id);
    const read = (answer: Report): ReadReport => {
      const reading = new Reading(config.api.fields);
      const content = readReport(answer, config.api.fields, reading);
      // What the reader left out for nesting too deep is not kept either: data.json is written by recursion.
      return { answer: answerAsKept(answer, content), content, reading };
    };
    // Each request takes an API slot, and none is sent once the quota is used up or the run stops.
    const gate = <T>(request: () => Promise<T>): Promise<T | null> => ctx.lanes.api(async () => (state.stops.stopSending() ? null : request()));
    const doctorHint = `Run \`geo-reports doctor --project ${project.id}\` to see where this API puts the report, then map it with api.fields in the config.`;

    // The project's requests, as the plan counted them: the report, then its scan (see fetch-scan).
    const scanCost = scanReads(config, project.id, await savedScan(ctx.periodDir, entry));
    if (!state.stops.admit(1 + scanCost)) {
      state.markPending(entry, 'the daily quota of every token is used up');
      return false;
    }
    let first: Report | null = null;
    if (entry.reportId === null) {
      first = await gate(() => client.createReport({ projectId: project.id, include, format: 'json' }));
      if (first === null) {
        state.markPending(entry, state.stops.stopReason());
        return false;
      }
      const report = read(first);
      if (report.content.id === null) {
        if (readiness(report.content, include) !== 'use') {
          throw new GeoReportsError(
            `The service answered the report request of project ${project.id} with no report id and none of the asked sections (it sent: ${keysOf(report.content)}).`,
            { hint: doctorHint },
          );
        }
        work.report = report;
        return true;
      }
      entry.reportId = report.content.id;
      await state.save(entry);
    }
    const reportId = entry.reportId;
    const result = await client.waitForReport({
      id: reportId,
      projectId: project.id,
      first,
      judge: (answer) => readiness(read(answer).content, include),
      maxWaitMs: config.report.reportWaitMs,
      gate,
      // Waiting for the service holds no report: another project may ask for its own meanwhile.
      sleep: async (ms, signal) => {
        ctx.held.release();
        try {
          await ctx.sleep(ms, signal);
        } finally {
          await ctx.held.take();
        }
      },
      ...(ctx.signal === undefined ? {} : { signal: ctx.signal }),
    });
    switch (result.kind) {
      case 'ready':
        work.report = read(result.answer);
        return true;
      case 'stopped':
        state.markPending(entry, state.stops.stopReason());
        return false;
      case 'timeout':
        state.markPending(entry, `report ${reportId} still being built after ${Math.round(result.waitedMs / 1000)} s`);
        return false;
      case 'failed': {
        entry.reportId = null; // a failed report is asked again next run
        const content = read(result.answer).content;
        throw new GeoReportsError(`The service failed to build report ${reportId} (status "${content.status ?? ''}").`);
      }
      case 'empty': {
        entry.reportId = null;
        const content = read(result.answer).content;
        throw new GeoReportsError(
          `Report ${reportId} says it is ${content.status ?? 'finished'} but carries none of the asked sections (${include.join(', ')}); it sent: ${keysOf(content)}.`,
          { hint: doctorHint },
        );
      }
    }
  },
};

/**
 * What to do with a report answer: use it; it is finished but empty; it failed; or wait for it. A status word
 * this tool does not know is judged by whether content is there.
 */
export function readiness(content: ReportContent, include: readonly ReportSection[]): ReportVerdict {
  const hasContent = include.some((section) => content.present.includes(section));
  switch (content.state) {
    case 'failed':
      return 'failed';
    case 'finished':
      return hasContent ? 'use' : 'finished-empty';
    case 'building':
      return 'wait';
    case 'unknown':
      return hasContent ? 'use' : 'wait';
  }
}

function includedSections(config: Config, projectId: number): ReportSection[] {
  const switches = sectionSwitches(config, projectId);
  const on = REPORT_SECTIONS.filter((s) => switches[s]);
  // The API needs at least one section; scores is the cheapest that still identifies the report.
  return on.length > 0 ? on : ['scores'];
}

function keysOf(content: ReportContent): string {
  return content.keys.length === 0 ? 'no key' : content.keys.slice(0, 12).join(', ') + (content.keys.length > 12 ? ', …' : '');
}
