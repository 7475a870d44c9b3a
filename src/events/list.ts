// The journal read back for `geo-reports events`: each delivery once, with what was done with it and where
// each of its alerts stands on each channel.
import { withoutControls, type EventKind } from './payload.js';
import { readJournal, type AlertLine, type DeliveryLine, type OutcomeLine } from './journal.js';

export interface EventRow {
  id: string;
  receivedAt: string;
  kind: EventKind;
  /** The kind as the sender wrote it. */
  kindText: string | null;
  projectId: number | null;
  /** What was done; `pending` while the receiver has not acted on it yet. */
  outcome: OutcomeLine['outcome'] | 'pending';
  detail: string | null;
  alerts: Array<{ kind: string; channels: Record<string, AlertLine['status']> }>;
}

export interface EventFilter {
  since: Date;
  projectId?: number | undefined;
  kind?: EventKind | undefined;
}

export async function listEvents(dir: string, filter: EventFilter, onBadLine?: (file: string, line: number) => void): Promise<EventRow[]> {
  const lines = await readJournal(dir, filter.since, onBadLine);
  const deliveries = new Map<string, DeliveryLine>();
  const outcomes = new Map<string, OutcomeLine>();
  const alerts = new Map<string, Record<string, AlertLine['status']>>();
  for (const line of lines) {
    if (line.type === 'delivery') {
      if (!deliveries.has(line.id)) deliveries.set(line.id, line);
    } else if (line.type === 'outcome') outcomes.set(line.id, line);
    else alerts.set(line.key, { ...alerts.get(line.key), [line.channel]: line.status });
  }
  const rows: EventRow[] = [];
  for (const delivery of deliveries.values()) {
    if (Date.parse(delivery.receivedAt) < filter.since.getTime()) continue;
    if (filter.projectId !== undefined && delivery.projectId !== filter.projectId) continue;
    if (filter.kind !== undefined && delivery.kind !== filter.kind) continue;
    const outcome = outcomes.get(delivery.id);
    // A journal written by an earlier version may hold control characters in a sender's text: none reaches a terminal.
    rows.push({
      id: withoutControls(delivery.id),
      receivedAt: delivery.receivedAt,
      kind: delivery.kind,
      kindText: delivery.kindText === null ? null : withoutControls(delivery.kindText),
      projectId: delivery.projectId,
      outcome: outcome?.outcome ?? 'pending',
      detail: outcome?.detail == null ? null : withoutControls(outcome.detail),
      alerts: (outcome?.alerts ?? []).map((alert) => ({ kind: alert.kind, channels: alerts.get(alert.key) ?? {} })),
    });
  }
  return rows;
}
