// Earlier periods' data of each client (their manifests, then each client's data.json): last period's for
// month-over-month changes, a few more for the goals' trend.
import { readFile } from 'node:fs/promises';
import { insideRoot, readManifest, type Manifest } from '../output/store.js';
import { periodBefore, type MonthPeriod } from '../period.js';
import { parsePeriodData, type PeriodData } from '../report/period-data.js';
import type { BatchEvent } from './events.js';
import { errorMessage } from '../errors.js';

export class EarlierPeriods {
  readonly #outDir: string;
  readonly #period: MonthPeriod;
  readonly #emit: (event: BatchEvent) => void;
  /** Each earlier period's manifest, read once for the whole run. */
  readonly #manifests = new Map<string, Promise<Manifest | null>>();

  constructor(outDir: string, period: MonthPeriod, emit: (event: BatchEvent) => void) {
    this.#outDir = outDir;
    this.#period = period;
    this.#emit = emit;
  }

  /** The project's data.json of last period; null on its first period or when unreadable (with a warning). */
  last(projectId: number): Promise<PeriodData | null> {
    return this.data(projectId, periodBefore(this.#period), 'no comparison');
  }

  /**
   * The project's data.json of an earlier `period`; null when that period has none for it, or when it is
   * unreadable (with a warning saying what the report goes on without).
   */
  async data(projectId: number, period: MonthPeriod, without = 'it is left out'): Promise<PeriodData | null> {
    if (period >= this.#period) return null;
    const dir = insideRoot(this.#outDir, period);
    let manifest = this.#manifests.get(period);
    if (manifest === undefined) {
      manifest = readManifest(dir).catch(() => {
        this.#emit({ type: 'warning', message: `The ${period} manifest is damaged; reports go on without that period.` });
        return null;
      });
      this.#manifests.set(period, manifest);
    }
    const file = (await manifest)?.projects.find((e) => e.id === projectId)?.files.data;
    if (file === undefined || file === null) return null;
    try {
      const parsed = parsePeriodData(JSON.parse(await readFile(insideRoot(dir, file), 'utf8')));
      if (parsed === null) this.#emit({ type: 'warning', message: `The ${period} data for project ${projectId} is unreadable; ${without}.` });
      return parsed;
    } catch (error) {
      const reason = errorMessage(error);
      this.#emit({ type: 'warning', message: `The ${period} data for project ${projectId} could not be read (${reason}); ${without}.` });
      return null;
    }
  }
}
