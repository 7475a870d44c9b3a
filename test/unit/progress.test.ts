import { describe, expect, it } from 'vitest';
import { createProgress, describePlan, describeSummary } from '../../src/batch/progress.js';
import type { CommandContext } from '../../src/command-context.js';
import { toMonth } from '../../src/period.js';

function terminal(): { ctx: CommandContext; err: string[]; out: string[] } {
  const err: string[] = [];
  const out: string[] = [];
  const ctx: CommandContext = {
    env: {},
    cwd: '/',
    stdout: { write: (s: string) => out.push(s) > 0 },
    stderr: { write: (s: string) => err.push(s) > 0, isTTY: true },
    signal: new AbortController().signal,
    clock: () => new Date('2026-11-04T06:00:00Z'),
  };
  return { ctx, err, out };
}

const plan = {
  period: toMonth('2026-10'),
  selected: 3,
  alreadyDone: 0,
  toDo: 3,
  reportsToday: 1,
  reportsLater: 2,
  floor: 6,
  remainingToday: 4,
  unknownIds: [],
  chosenBy: { rule: 'statuses' as const, statuses: ['active' as const], listed: 0 },
  leftOut: 0,
  outdated: 0,
  remake: null,
  space: null,
};

describe('progress on a terminal', () => {
  it('draws a bar, and survives more finished projects than the quota allowed for today', () => {
    const { ctx, err, out } = terminal();
    const progress = createProgress(ctx, false);
    progress.event({ type: 'plan', plan });
    progress.event({ type: 'project-done', id: 1, name: 'A', held: [], ms: 10 });
    progress.event({ type: 'project-pending', id: 2, name: 'B', reason: 'quota' });
    progress.event({ type: 'project-pending', id: 3, name: 'C', reason: 'quota' });
    progress.event({ type: 'quota-exhausted', message: 'spent' });
    progress.event({
      type: 'summary',
      summary: {
        period: toMonth('2026-10'),
        status: 'quota_exhausted',
        done: 1,
        failed: 0,
        pending: 2,
        skipped: 0,
        held: 0,
        requests: { total: 4, byToken: { 'token#1 (…abcd)': 4 } },
        durationMs: 1200,
        periodDir: '/out/2026-10',
        dryRun: false,
        sectionsLeftOut: [],
        goalsWithoutData: [],
      },
    });
    progress.close();
    const screen = err.join('');
    expect(screen).toContain('[' + '█'.repeat(28) + '] 3/3');
    expect(screen).toContain('left for the next day');
    expect(out.join('')).toContain('Done: 1 · failed: 0 · pending: 2 — status quota_exhausted');
    expect(out.join('')).not.toContain('no data');
  });

  it('says in one line which goal metrics no report had, and for which clients', () => {
    const { ctx, out } = terminal();
    const progress = createProgress(ctx, false);
    const clients = [1, 2, 3, 4, 5].map((id) => ({ id, name: `Client ${id}`, metrics: id === 2 ? ['ai:perplexity', 'metric:x'] : ['ai:perplexity'] }));
    progress.event({
      type: 'summary',
      summary: {
        period: toMonth('2026-10'),
        status: 'complete',
        done: 5,
        failed: 0,
        pending: 0,
        skipped: 0,
        held: 0,
        requests: { total: 8, byToken: {} },
        durationMs: 900,
        periodDir: '/out/2026-10',
        dryRun: false,
        sectionsLeftOut: [],
        goalsWithoutData: clients,
      },
    });
    const lines = out
      .join('')
      .split('\n')
      .filter((line) => line.includes('no data'));
    expect(lines).toEqual([
      'Goals shown as "no data" (the API gave no value): ai:perplexity for 5 client(s): Client 1 (#1), Client 2 (#2), Client 3 (#3) and 2 more; metric:x for 1 client(s): Client 2 (#2)',
    ]);
  });

  it('prints one JSON line per event when not a terminal', () => {
    const { ctx, out } = terminal();
    const progress = createProgress({ ...ctx, stderr: { write: () => true } }, false);
    progress.event({ type: 'plan', plan });
    progress.event({ type: 'warning', message: 'w' });
    expect(out.map((l) => (JSON.parse(l) as { type: string }).type)).toEqual(['plan', 'warning']);
  });
});

describe('progress of a run the disk stops', () => {
  it('shows the room needed against the room free, then the stop with its fix', () => {
    const { ctx, err, out } = terminal();
    const progress = createProgress(ctx, false);
    const space = {
      reports: 3,
      perReport: 500 * 1024,
      perReportSource: 'measured' as const,
      reserve: 536 * 1024,
      needed: 2036 * 1024,
      free: 3 * 1024 * 1024,
      volume: 'tmpfs mounted at /srv',
    };
    progress.event({ type: 'plan', plan: { ...plan, space } });
    progress.event({ type: 'project-done', id: 1, name: 'A', held: [], ms: 10 });
    progress.event({
      type: 'disk-full',
      code: 'ENOSPC',
      message: 'The disk of /srv/out/2026-10 (tmpfs mounted at /srv) is full',
      hint: 'Free at least 1.0 MB on tmpfs mounted at /srv',
    });
    progress.event({
      type: 'summary',
      summary: {
        period: toMonth('2026-10'),
        status: 'disk_full',
        done: 1,
        failed: 0,
        pending: 2,
        skipped: 0,
        held: 0,
        requests: { total: 4, byToken: {} },
        durationMs: 1200,
        periodDir: '/srv/out/2026-10',
        dryRun: false,
        sectionsLeftOut: [],
        goalsWithoutData: [],
      },
    });
    progress.close();
    const screen = err.join('');
    expect(screen).toContain(
      'Disk: about 2.0 MB needed (3 report(s), 500 KB per report, as the reports already written, with the manifest and the index); 3.0 MB free on tmpfs mounted at /srv: enough.',
    );
    expect(screen).toContain('The disk of /srv/out/2026-10 (tmpfs mounted at /srv) is full\nFix: Free at least 1.0 MB on tmpfs mounted at /srv');
    expect(out.join('')).toContain('status disk_full');
  });
});

describe('the plan and the summary say what chose the projects and what a run writes', () => {
  it('names the listed rule, how many projects it left out, and the reports made with other templates', () => {
    const text = describePlan({ ...plan, selected: 6, toDo: 6, leftOut: 19, outdated: 2, chosenBy: { rule: 'listed', statuses: ['active'], listed: 6 } });
    expect(text).toContain(
      'Chosen by report.clients "listed": the 6 client(s) of the config\'s clients, status active; 19 project(s) of the account left out (--all reports them, once).',
    );
    expect(text).toContain("2 done report(s) were made with other templates than today's: `geo-reports run --period 2026-10 --remake`");
    expect(describePlan(plan)).toContain('Chosen by status active; none left out.');
    expect(describePlan({ ...plan, remake: 6 })).toMatch(/^Period 2026-10: 6 done report\(s\) to make again from their saved data .* without a request/);
  });

  it('a dry run names no file as written and has no status of its own', () => {
    const summary = {
      period: toMonth('2026-10'),
      status: 'partial' as const,
      done: 0,
      failed: 0,
      pending: 6,
      skipped: 0,
      held: 0,
      requests: { total: 1, byToken: {} },
      durationMs: 300,
      periodDir: '/out/2026-10',
      dryRun: true,
      sectionsLeftOut: [],
      goalsWithoutData: [],
    };
    const text = describeSummary(summary);
    expect(text).toContain('Dry run: nothing was written and no report was asked for; a run would write 6 report(s)');
    expect(text).not.toMatch(/status partial|Reports: /);
    expect(describeSummary({ ...summary, dryRun: false })).toContain('Reports: /out/2026-10/index.html');
  });
});
