// Last period's data of each client (its manifest, then its data.json), read for month-over-month changes.
import { readFile } from 'node:fs/promises';
import { insideRoot, readManifest, type Manifest } from '../output/store.js';
import { periodBefore } from '../period.js';
import { parsePeriodData, type PeriodData } from '../report/period-data.js';
import type { BatchEvent } from './period-state.js';

export class LastPeriod {
  readonly #dir: string;
  readonly #period: string;
  readonly #emit: (event: BatchEvent) => void;
  #manifest: Promise<Manifest | null> | null = null;

  constructor(outDir: string, period: string, emit: (event: BatchEvent) => void) {
    this.#period = periodBefore(period);
    this.#dir = insideRoot(outDir, this.#period);
    this.#emit = emit;
  }

  /** The project's data.json of last period; null on its first period or when unreadable (with a warning). */
  async data(projectId: number): Promise<PeriodData | null> {
    // The manifest is read once for the whole run.
    this.#manifest ??= readManifest(this.#dir).catch(() => {
      this.#emit({ type: 'warning', message: `The ${this.#period} manifest is damaged; reports go on without comparison.` });
      return null;
    });
    const file = (await this.#manifest)?.projects.find((e) => e.id === projectId)?.files.data;
    if (file === undefined || file === null) return null;
    try {
      const parsed = parsePeriodData(JSON.parse(await readFile(insideRoot(this.#dir, file), 'utf8')));
      if (parsed === null) this.#emit({ type: 'warning', message: `Last period's data for project ${projectId} is unreadable; no comparison.` });
      return parsed;
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      this.#emit({ type: 'warning', message: `Last period's data for project ${projectId} could not be read (${reason}); no comparison.` });
      return null;
    }
  }
}
