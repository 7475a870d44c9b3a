// What a stored delivery leads to, decided once and written as its outcome line: a score drop of at least
// `alerts.minDrop` points (GEO or SEO) or a failed scan raises an alert, once per project and kind per cooldown;
// everything else is recorded for `geo-reports events`. The alerts themselves go out afterwards, from the
// outcome line, so a receiver killed between the two sends them when it starts again, and only then.
import type { AlertKind, DeliveryLine, Outcome, OutcomeLine } from './journal.js';
import type { EventStore, KnownScores } from './store.js';

export interface AlertPolicy {
  /** Points of GEO or SEO a score must lose to alert. */
  minDrop: number;
  /** Per project and kind: no second alert within this many minutes. */
  cooldownMinutes: number;
}

export interface DecideOptions {
  store: EventStore;
  policy: AlertPolicy;
  clock: () => Date;
  /** The names of the alert channels configured; with none, an alert is recorded as not sent. */
  channels: readonly string[];
  /**
   * The project's latest scores from the API (one request), for a score change that carries no numbers; null
   * when they cannot be read (no token, quota used up, an error), with the reason given to `log`.
   */
  latestScores?: (projectId: number) => Promise<KnownScores | null>;
}

const SCORE_KINDS = { geo: 'geo_drop', seo: 'seo_drop' } as const;

/** The outcome of one delivery (not yet written). */
export async function decide(delivery: DeliveryLine, options: DecideOptions): Promise<OutcomeLine> {
  const at = options.clock().toISOString();
  let read: OutcomeLine['read'];
  const outcome = (name: Outcome, detail: string, alerts: OutcomeLine['alerts'] = []): OutcomeLine => ({
    type: 'outcome',
    id: delivery.id,
    at,
    outcome: name,
    detail,
    alerts,
    ...(read === undefined ? {} : { read }),
  });
  switch (delivery.kind) {
    case 'test':
      return outcome('test', 'test delivery received');
    case 'unknown':
      return outcome('unknown_kind', delivery.kindText === null ? 'the delivery names no event kind' : `unknown event kind "${delivery.kindText}"`);
    case 'scan.completed':
      return outcome('recorded', delivery.projectId === null ? 'scan completed' : `scan completed for project ${delivery.projectId}`);
    case 'scan.failed':
      if (delivery.projectId === null) return outcome('no_project', 'a failed scan without a project id: nothing to alert about');
      return raise(delivery.projectId, [{ kind: 'scan_failed', detail: `a scan of project ${delivery.projectId} failed`, before: null, after: null }]);
    case 'score.change': {
      if (delivery.projectId === null) return outcome('no_project', 'a score change without a project id');
      const moves = await scoreMoves(delivery, delivery.projectId, options);
      if (moves === null) return outcome('no_scores', 'the delivery carries no scores and the API could not be read');
      if (moves.read) read = { projectId: delivery.projectId, geo: moves.geo.after, seo: moves.seo.after };
      const drops = (['geo', 'seo'] as const).flatMap((score) => {
        const { before, after } = moves[score];
        // A drop: lower than before, by at least minDrop (with minDrop 0, any fall, never an unchanged score).
        if (before === null || after === null || after >= before || before - after < options.policy.minDrop) return [];
        const points = Math.round((before - after) * 10) / 10;
        return [{ kind: SCORE_KINDS[score], detail: `${score.toUpperCase()} ${before} → ${after} (−${points})`, before, after }];
      });
      if (drops.length === 0) {
        const shown = (['geo', 'seo'] as const)
          .filter((score) => moves[score].before !== null && moves[score].after !== null)
          .map((score) => `${score.toUpperCase()} ${moves[score].before} → ${moves[score].after}`);
        return outcome(
          'below_threshold',
          `${shown.length === 0 ? 'no before and after to compare' : shown.join(', ')}; alerts from a drop of ${options.policy.minDrop}`,
        );
      }
      return raise(delivery.projectId, drops);
    }
  }

  function raise(projectId: number, due: Array<{ kind: AlertKind; detail: string; before: number | null; after: number | null }>): OutcomeLine {
    const now = options.clock().getTime();
    const cooling = due.filter(({ kind }) => {
      const last = options.store.lastAlert(projectId, kind);
      return last !== null && now - last.getTime() < options.policy.cooldownMinutes * 60_000;
    });
    const alerting = due.filter((d) => !cooling.includes(d));
    const details = due.map((d) => `${d.detail}${cooling.includes(d) ? ' (within cooldown)' : ''}`).join('; ');
    if (alerting.length === 0) return outcome('cooldown', details);
    if (options.channels.length === 0)
      return outcome('not_sent', `${details}; no alert channel is configured (alerts.email.to, GEO_REPORTS_ALERT_WEBHOOK_URL)`);
    return {
      ...outcome(
        'alerted',
        details,
        alerting.map(({ kind, before, after }) => ({ key: `${delivery.id}#${kind}`, kind, projectId, before, after })),
      ),
      channels: [...options.channels],
    };
  }
}

/** Before and after for each score: the delivery's own, the journal's last known before it, the API's latest. */
type Moves = Record<'geo' | 'seo', { before: number | null; after: number | null }> & { read: boolean };

async function scoreMoves(delivery: DeliveryLine, projectId: number, options: DecideOptions): Promise<Moves | null> {
  const moves = {
    geo: { before: delivery.scores.geo.before ?? delivery.known.geo, after: delivery.scores.geo.after },
    seo: { before: delivery.scores.seo.before ?? delivery.known.seo, after: delivery.scores.seo.after },
    read: false,
  };
  if (moves.geo.after !== null || moves.seo.after !== null) return moves;
  const latest = (await options.latestScores?.(projectId)) ?? null;
  if (latest === null) return null;
  return { geo: { ...moves.geo, after: latest.geo }, seo: { ...moves.seo, after: latest.seo }, read: true };
}
