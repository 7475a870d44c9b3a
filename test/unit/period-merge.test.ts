// A period's state as one record that only grows: two copies of a manifest (the history branch's and a runner's,
// or two runs' that saved one after the other) merged by report and by recipient.
import { describe, expect, it } from 'vitest';
import { mergeDelivery, mergePeriodState } from '../../src/history/period-merge.js';
import type { DeliveryState, Manifest, ProjectEntry } from '../../src/output/store.js';
import { doneEntry, pendingEntry, periodManifest } from '../support/manifest.js';

const mail = (status: DeliveryState['status'], at: string, accepted: string[] = []): DeliveryState => ({
  status,
  messageId: '<m@x>',
  at,
  accepted,
  rejected: [],
  attempts: 1,
});

const withMail = (entry: ProjectEntry, email: DeliveryState): ProjectEntry => ({ ...entry, deliveries: { email } });

const copy = (projects: ProjectEntry[], updatedAt: string, extra: Partial<Manifest> = {}): Manifest => ({
  ...periodManifest(projects),
  updatedAt,
  ...extra,
});

describe('mergePeriodState', () => {
  it('keeps every report done in either copy, and the reports only one copy knows', () => {
    const saved = copy([doneEntry(1), pendingEntry(2)], '2026-11-04T07:00:00.000Z', { status: 'quota_exhausted' });
    const local = copy([pendingEntry(1), doneEntry(2), doneEntry(3)], '2026-11-04T06:30:00.000Z', { status: 'partial' });
    const merged = mergePeriodState(saved, local);
    expect(merged.projects.map((e) => [e.id, e.status])).toEqual([
      [1, 'done'],
      [2, 'done'],
      [3, 'done'],
    ]);
    expect(merged.status).toBe('complete');
  });

  it('keeps the mails of both runs: one run mailed 1, the other 2, neither record lost (the last save does not win)', () => {
    const first = copy([withMail(doneEntry(1), mail('sent', '2026-11-20T10:00:01Z')), doneEntry(2)], '2026-11-20T10:00:05Z', { status: 'complete' });
    const second = copy([doneEntry(1), withMail(doneEntry(2), mail('sent', '2026-11-20T10:00:03Z'))], '2026-11-20T10:00:09Z', { status: 'complete' });
    for (const merged of [mergePeriodState(first, second), mergePeriodState(second, first)]) {
      expect(merged.projects.map((e) => e.deliveries?.email?.status)).toEqual(['sent', 'sent']);
    }
  });

  it('never takes a sent mail back to unknown or unsent, whichever copy is newer', () => {
    const sent = mail('sent', '2026-11-20T10:00:00Z', ['a@client.example']);
    expect(mergeDelivery(sent, mail('unknown', '2026-11-21T10:00:00Z'))?.status).toBe('sent');
    expect(mergeDelivery(mail('failed', '2026-11-21T10:00:00Z'), sent)?.status).toBe('sent');
    expect(mergeDelivery(mail('sending', '2026-11-21T10:00:00Z'), sent)?.status).toBe('sent');
    expect(mergeDelivery(undefined, sent)).toEqual(sent);
  });

  it('of two records that are not sent, the newer wins, with every recipient either saw accept', () => {
    const merged = mergeDelivery(mail('failed', '2026-11-20T10:00:00Z', ['a@client.example']), mail('unknown', '2026-11-20T11:00:00Z', ['b@client.example']));
    expect(merged?.status).toBe('unknown');
    expect(merged?.accepted).toEqual(['b@client.example', 'a@client.example']);
  });

  it('keeps a release whichever copy made it, and the held period becomes complete', () => {
    const held = { ...doneEntry(1), held: ['no recommendations'] };
    const saved = copy([{ ...held, released: true }], '2026-11-04T06:00:00.000Z', { status: 'complete' });
    const local = copy([held], '2026-11-05T06:00:00.000Z', { status: 'held' });
    const merged = mergePeriodState(saved, local);
    expect(merged.projects[0]?.released).toBe(true);
    expect(merged.status).toBe('complete');
  });

  it('keeps the versions made beside a sent report in either copy: a remake on one runner, a mail recorded on the other', () => {
    const sent = withMail(doneEntry(1), mail('sent', '2026-11-20T10:00:00Z'));
    const version = (n: number, madeAt: string) => ({
      version: n,
      files: { html: `p/report-v${n}.html`, pdf: `p/report-v${n}.pdf`, data: null },
      reason: 'remake' as const,
      madeAt,
      held: [],
    });
    const remade = copy([{ ...sent, versions: [version(2, '2026-11-21T09:00:00Z')], updatedAt: '2026-11-21T09:00:00Z' }], '2026-11-21T09:00:00Z');
    const other = copy([{ ...sent, versions: [version(3, '2026-11-21T10:00:00Z')], updatedAt: '2026-11-21T10:00:00Z' }], '2026-11-21T10:00:00Z');
    expect(mergePeriodState(remade, other).projects[0]?.versions?.map((v) => v.version)).toEqual([2, 3]);
    expect(mergePeriodState(other, remade).projects[0]?.versions?.map((v) => v.version)).toEqual([2, 3]);
    expect(mergePeriodState(copy([sent], '2026-11-22T00:00:00Z'), remade).projects[0]?.versions?.map((v) => v.version)).toEqual([2]);
  });

  it('takes the larger request count, the earlier start, and the shards of both', () => {
    const saved = copy([doneEntry(1)], '2026-11-04T07:00:00.000Z', {
      requests: { total: 9, byToken: { a: 9 } },
      shards: ['1/2'],
      startedAt: '2026-11-04T06:00:00.000Z',
    });
    const local = copy([pendingEntry(2)], '2026-11-04T08:00:00.000Z', {
      requests: { total: 4, byToken: { a: 4 } },
      shards: ['2/2'],
      startedAt: '2026-11-04T06:10:00.000Z',
    });
    const merged = mergePeriodState(saved, local);
    expect(merged.requests.total).toBe(9);
    expect(merged.startedAt).toBe('2026-11-04T06:00:00.000Z');
    expect(merged.shards).toEqual(['1/2', '2/2']);
    expect(merged.status).toBe('partial');
  });
});
