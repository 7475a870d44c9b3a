// What every report of the period shares, asked once: competitors (benchmark, percentile) and statistics.
import type { ApiClient } from '../api/client.js';
import type { Config } from '../config/schema.js';
import { readCompetitors, readStats, type CompetitorsContent, type StatsContent } from '../content/competitors.js';
import { Reading } from '../content/reading.js';
import type { Ranking } from '../report/assemble.js';
import type { BatchEvent } from './events.js';
import type { PeriodState } from './period-state.js';
import { errorMessage } from '../errors.js';

export interface SharedData {
  competitors: CompetitorsContent | null;
  /** stats.php's `data` as sent (kept in data.json) and as read (the agency index). */
  statsData: unknown;
  stats: StatsContent | null;
}

/** Both answers at once; one that fails leaves the reports without it (a warning says so), never stops them. */
export async function fetchShared(client: ApiClient, config: Config, state: PeriodState, emit: (event: BatchEvent) => void): Promise<SharedData> {
  const failure =
    (what: string) =>
    (error: unknown): null => {
      if (!state.stops.onQuota(error)) {
        emit({
          type: 'warning',
          message: `Could not read the ${what} (${errorMessage(error)}); reports go on without them.`,
        });
      }
      return null;
    };
  const [competitorsData, statsData] = await Promise.all([
    client.getCompetitors().catch(failure('competitors')),
    client.getStats().catch(failure('statistics')),
  ]);
  const fields = config.api.fields;
  const competitorsReading = new Reading(fields);
  const competitors = competitorsData === null ? null : readCompetitors(competitorsData, fields, competitorsReading);
  const statsReading = new Reading(fields);
  const stats = statsData === null ? null : readStats(statsData, fields, statsReading);
  // Said once for the run; each project's own notes say what its report lacks.
  for (const note of [...competitorsReading.notes, ...statsReading.notes]) emit({ type: 'warning', message: note });
  return { competitors, statsData, stats };
}

/** This project's comparison with the benchmark; null when the competitors answer could not be read. */
export function rankingOf(shared: SharedData, projectId: number): Ranking | null {
  if (shared.competitors === null) return null;
  return { row: shared.competitors.rows.find((row) => row.projectId === projectId) ?? null, benchmark: shared.competitors.benchmark };
}
