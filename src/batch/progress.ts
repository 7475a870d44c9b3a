// Progress of a batch: a bar on a terminal; one JSON line per event for logs and CI (or with --json).
import type { CommandContext } from '../command-context.js';
import { formatBytes } from '../output/disk.js';
import { CLEAR_LINE } from '../outgoing-text.js';
import type { BatchEvent, BatchSummary, PlanSummary, SpaceEstimate } from './run.js';

type ProgressContext = Pick<CommandContext, 'stdout' | 'stderr' | 'clock'>;

export interface Progress {
  event(event: BatchEvent): void;
  close(): void;
}

export function createProgress(ctx: ProgressContext, json: boolean): Progress {
  return json || ctx.stderr.isTTY !== true ? jsonLines(ctx) : terminalBar(ctx);
}

function jsonLines(ctx: ProgressContext): Progress {
  return {
    event(event) {
      ctx.stdout.write(`${JSON.stringify({ time: ctx.clock().toISOString(), ...event })}\n`);
    },
    close() {},
  };
}

function terminalBar(ctx: ProgressContext): Progress {
  const out = ctx.stderr;
  let total = 0;
  let done = 0;
  let failed = 0;
  let pending = 0;
  let held = 0;
  let current = '';
  let started = ctx.clock().getTime();
  let drawn = false;
  const width = 28;

  const draw = (): void => {
    if (total === 0) return;
    const finished = done + failed + pending;
    const filled = Math.min(width, Math.round((finished / total) * width));
    const elapsed = (ctx.clock().getTime() - started) / 1000;
    const eta = finished > 0 && finished < total ? ` · ~${formatDuration((elapsed / finished) * (total - finished))} left` : '';
    const counts = [`${done} done`, failed > 0 ? `${failed} failed` : '', pending > 0 ? `${pending} pending` : '', held > 0 ? `${held} held` : '']
      .filter(Boolean)
      .join(' · ');
    const line = `[${'█'.repeat(filled)}${'░'.repeat(width - filled)}] ${finished}/${total} · ${counts}${eta} ${current}`;
    out.write(CLEAR_LINE);
    out.write(line.slice(0, 140));
    drawn = true;
  };
  const say = (text: string): void => {
    if (drawn) out.write(CLEAR_LINE);
    out.write(`${text}\n`);
    draw();
  };

  return {
    event(event) {
      switch (event.type) {
        case 'plan':
          // Every project to do ends as done, failed or pending, including those the quota leaves for tomorrow.
          total = event.plan.toDo;
          started = ctx.clock().getTime();
          say(describePlan(event.plan));
          break;
        case 'project-start':
          current = event.name.slice(0, 40);
          draw();
          break;
        case 'project-done':
          done += 1;
          held += event.held.length > 0 ? 1 : 0;
          if (event.held.length > 0) say(`  held: ${event.name}: ${event.held.join('; ')}`);
          draw();
          break;
        case 'project-failed':
          failed += 1;
          say(`  failed: ${event.name}: ${event.error}`);
          break;
        case 'project-pending':
          pending += 1;
          draw();
          break;
        case 'quota-exhausted':
          say(`Daily quota used up on every token: no more requests today. ${event.message}`);
          break;
        case 'disk-full':
          say(`${event.message}\nFix: ${event.hint}`);
          break;
        case 'warning':
          say(`  warning: ${event.message}`);
          break;
        case 'summary':
          if (drawn) out.write(CLEAR_LINE);
          drawn = false;
          ctx.stdout.write(`${describeSummary(event.summary)}\n`);
          break;
      }
    },
    close() {
      if (drawn) out.write('\n');
    },
  };
}

export function describePlan(plan: PlanSummary): string {
  if (plan.remake !== null) {
    // run --remake: no request at all, so no line about the quota.
    return [
      `Period ${plan.period}: ${plan.remake} done report(s) to make again from their saved data with today's templates and config, without a request (a sent one gets a new version beside it).`,
      describeChoice(plan),
      ...(plan.space === null ? [] : [describeSpace(plan.space)]),
    ].join('\n');
  }
  const lines = [
    `Period ${plan.period}: ${plan.selected} project(s) selected, ${plan.alreadyDone} already done, ${plan.toDo} to report.`,
    describeChoice(plan),
    ...(plan.outdated > 0
      ? [
          `${plan.outdated} done report(s) were made with other templates than today's: \`geo-reports run --period ${plan.period} --remake\` makes them again from their saved data, without a request.`,
        ]
      : []),
    `Requests needed: at least ${plan.floor}${plan.scanRequests === undefined ? '' : ` (${plan.scanRequests} of them listing and reading the period's scans for the scan sections${plan.scanRetries === undefined ? ', and 1 more if the service refuses seo_steps' : `, and ${plan.scanRetries} read again without seo_steps`})`}; the tokens have about ${plan.remainingToday} left today.`,
    plan.reportsLater > 0
      ? `Today: ${plan.reportsToday} report(s); ${plan.reportsLater} left for the next day (run the same command again tomorrow).`
      : `Today: ${plan.reportsToday} report(s).`,
    ...(plan.space === null ? [] : [describeSpace(plan.space)]),
  ];
  return lines.join('\n');
}

/** Which rule chose the projects, and how many of the account's it left out. */
export function describeChoice(plan: Pick<PlanSummary, 'chosenBy' | 'leftOut' | 'selected'>): string {
  const { chosenBy, leftOut } = plan;
  const statuses = chosenBy.statuses.join(', ');
  const rule =
    chosenBy.rule === 'projects'
      ? 'Chosen by --project'
      : chosenBy.rule === 'listed'
        ? `Chosen by report.clients "listed": the ${chosenBy.listed} client(s) of the config's clients, status ${statuses}`
        : `Chosen by status ${statuses}${leftOut > 0 ? ' (report.clients "all")' : ''}`;
  const left =
    leftOut === 0 ? 'none left out' : `${leftOut} project(s) of the account left out${chosenBy.rule === 'listed' ? ' (--all reports them, once)' : ''}`;
  return `${rule}; ${left}.`;
}

export function describeSpace(space: SpaceEstimate): string {
  const each = `${formatBytes(space.perReport)} per report, ${space.perReportSource === 'measured' ? 'as the reports already written' : 'by default'}`;
  const verdict = space.needed > space.free && space.reports > 0 ? 'not enough' : 'enough';
  return `Disk: about ${formatBytes(space.needed)} needed (${space.reports} report(s), ${each}, with the manifest and the index); ${formatBytes(space.free)} free on ${space.volume}: ${verdict}.`;
}

export function describeSummary(s: BatchSummary): string {
  if (s.dryRun) {
    // Only what a run would write: nothing is on disk yet, and a dry run has no status of its own.
    const would =
      s.pending === 0
        ? `a run would report nothing new in ${s.periodDir}`
        : `a run would write ${s.pending} report(s) (report.html, report.pdf and data.json in a folder per client) into ${s.periodDir}, with its manifest.json and index.html`;
    return `Dry run: nothing was written and no report was asked for; ${would}. Requests: ${s.requests.total}.`;
  }
  const byToken = Object.entries(s.requests.byToken)
    .map(([label, n]) => `${label}: ${n}`)
    .join(', ');
  return [
    `Done: ${s.done} · failed: ${s.failed} · pending: ${s.pending}${s.held > 0 ? ` · held: ${s.held}` : ''} — status ${s.status}`,
    `Requests: ${s.requests.total}${byToken !== '' ? ` (${byToken})` : ''} · time ${formatDuration(s.durationMs / 1000)}`,
    ...(s.goalsWithoutData.length === 0 ? [] : [describeGoalsWithoutData(s.goalsWithoutData)]),
    ...describeSectionsLeftOut(s.sectionsLeftOut),
    `Reports: ${s.periodDir}/index.html`,
  ].join('\n');
}

/** Each client whose report was made without a scan section: the section and why (the first five clients, then a count). */
function describeSectionsLeftOut(list: BatchSummary['sectionsLeftOut']): string[] {
  if (list.length === 0) return [];
  const lines = list.slice(0, 5).map(({ id, name, sections }) => `  ${name} (#${id}): ${sections.map((s) => `${s.section} (${s.reason})`).join('; ')}`);
  if (list.length > 5) lines.push(`  and ${list.length - 5} more client(s): see the agency index`);
  return [`Sections left out (the reports were made without them):`, ...lines];
}

/** One line: each goal metric no report had, with the first clients it concerns. */
function describeGoalsWithoutData(list: BatchSummary['goalsWithoutData']): string {
  const byMetric = new Map<string, string[]>();
  for (const { id, name, metrics } of list) {
    for (const metric of metrics) byMetric.set(metric, [...(byMetric.get(metric) ?? []), `${name} (#${id})`]);
  }
  const parts = [...byMetric].map(([metric, clients]) => {
    const named = clients.slice(0, 3).join(', ');
    return `${metric} for ${clients.length} client(s): ${named}${clients.length > 3 ? ` and ${clients.length - 3} more` : ''}`;
  });
  return `Goals shown as "no data" (the API gave no value): ${parts.join('; ')}`;
}

function formatDuration(seconds: number): string {
  if (seconds < 60) return `${seconds.toFixed(1)} s`;
  const m = Math.floor(seconds / 60);
  return `${m} min ${Math.round(seconds - m * 60)} s`;
}
