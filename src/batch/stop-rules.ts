// When a run stops sending and rendering, and what it says then: the tokens' quota (or the day's budget), a disk
// that refuses writes, a browser that will not start again, a signal. Each stop is announced once.
import { TokensSpentError } from '../api/errors.js';
import { diskFix, diskFullCode, diskProblem, formatBytes, type DiskFullCode } from '../output/disk.js';
import type { ProjectEntry } from '../output/store.js';
import { BrowserConnectError, BrowserLaunchError, BrowserLostError } from '../render/print/errors.js';
import type { BatchEvent, BatchStatus } from './events.js';

export interface StopRulesOptions {
  periodDir: string;
  signal?: AbortSignal | undefined;
  emit: (event: BatchEvent) => void;
  /** Reports of the period neither done nor skipped: those a disk stop leaves for the next run. */
  waiting: () => number;
}

/** The disk of the period folder, as the messages name it, and the room one report takes (for the fix). */
export interface DiskOfPeriod {
  volume: string;
  reportBytes: number;
}

export class StopRules {
  readonly #options: StopRulesOptions;
  #disk: DiskOfPeriod | null = null;
  #quotaStopped = false;
  /** Requests the tokens have left for projects not yet started; null when not known. */
  #budget: number | null = null;
  /** A project did not start because its requests did not fit in what the tokens have left today. */
  #budgetSpent = false;
  /** The first write the disk refused, with its error. */
  #diskStopped: { code: DiskFullCode; error: unknown } | null = null;
  /** Why the browser could not be started again during the run. */
  #browserStopped: string | null = null;

  constructor(options: StopRulesOptions) {
    this.#options = options;
  }

  /** The disk the messages name and the size of one report, once measured (before the run, and after a disk stop). */
  describeDisk(disk: DiskOfPeriod): void {
    this.#disk = disk;
  }

  get interrupted(): boolean {
    return this.#options.signal?.aborted === true;
  }

  /** No new request is sent once the quota is used up, the disk takes no more writes, or the run was asked to stop. */
  stopSending(): boolean {
    return this.#quotaStopped || this.#diskStopped !== null || this.#browserStopped !== null || this.interrupted;
  }

  /** No new report starts rendering once the run was asked to stop or the disk takes no more writes. */
  stopRendering(): boolean {
    return this.#diskStopped !== null || this.#browserStopped !== null || this.interrupted;
  }

  stopReason(): string {
    if (this.interrupted) return 'the run was interrupted';
    if (this.#diskStopped !== null) return `the disk ${this.diskName()} ${diskProblem(this.#diskStopped.code)}`;
    if (this.#browserStopped !== null) return 'the browser could not be started again';
    return 'the daily quota of every token is used up';
  }

  /**
   * True (and sending stops, announced once) when `error` says the disk takes no more writes: full, over quota or
   * read-only. Every later write would fail the same way, so the reports not written wait for the next run.
   */
  onDiskFull(error: unknown): boolean {
    const code = diskFullCode(error);
    if (code === null) return false;
    if (this.#diskStopped === null) {
      this.#diskStopped = { code, error };
      const { message, hint } = this.diskStop() as NonNullable<ReturnType<StopRules['diskStop']>>;
      this.#options.emit({ type: 'disk-full', code, message, hint });
    }
    return true;
  }

  /**
   * True when `error` says the browser went away: it stopped while printing (the next report starts a fresh one),
   * or it would not start again, which stops the run like a full disk (announced once). Either way the report
   * waits for the next run with its report id, never failed.
   */
  onBrowserGone(error: unknown): boolean {
    if (error instanceof BrowserLaunchError || error instanceof BrowserConnectError) {
      if (this.#browserStopped === null) {
        this.#browserStopped = error.message;
        const waiting = 'no new report is asked; the reports not printed wait for the next run with their report ids (none is counted failed)';
        this.#options.emit({ type: 'warning', message: `The browser stopped and could not be started again (${error.message}): ${waiting}.` });
      }
      return true;
    }
    return error instanceof BrowserLostError;
  }

  /** Why the run stopped for the disk and what to do, or null when it did not. */
  diskStop(): { code: DiskFullCode; message: string; hint: string } | null {
    if (this.#diskStopped === null) return null;
    const { code } = this.#diskStopped;
    const waiting = this.#options.waiting();
    const message = `The disk ${this.diskName()} ${diskProblem(code)}: no new report is asked; reports in flight finish if they can, the ${waiting} not written wait for the next run (none is counted failed).`;
    return {
      code,
      message,
      hint: `${this.diskHint(code, waiting)}, then run the same command again: finished reports are kept, and reports the service already made are read back by their id, not asked again.`,
    };
  }

  /** The fix for a disk that refused writes, with the room `reports` more reports need when that is known. */
  diskHint(code: DiskFullCode, reports?: number): string {
    const bytes = this.#disk?.reportBytes;
    const toFree =
      reports === undefined || bytes === undefined ? null : { bytes: reports * bytes, reckoning: `${reports} report(s) of about ${formatBytes(bytes)}` };
    return diskFix(code, this.#disk?.volume ?? this.#options.periodDir, toFree);
  }

  /** "of /srv/out/2026-10 (tmpfs mounted at /srv)": the folder and, when known, the file system under it. */
  diskName(): string {
    const volume = this.#disk?.volume;
    const dir = this.#options.periodDir;
    return volume === undefined || volume === dir ? `of ${dir}` : `of ${dir} (${volume})`;
  }

  /** True (and sending stops, announced once) when `error` says every token's quota is used up. */
  onQuota(error: unknown): boolean {
    if (!(error instanceof TokensSpentError)) return false;
    if (!this.#quotaStopped) {
      this.#quotaStopped = true;
      this.#options.emit({ type: 'quota-exhausted', message: error.message });
    }
    return true;
  }

  /** What the tokens have left today for the projects, once the shared calls are made; not finite: no budget. */
  setBudget(remaining: number): void {
    this.#budget = Number.isFinite(remaining) ? remaining : null;
  }

  /**
   * Takes a project's requests (as its plan counted them) from the day's budget before it sends any: one that does
   * not fit waits for the next run, so the day's requests finish projects instead of starting each one halfway.
   */
  admit(cost: number): boolean {
    if (this.#budget === null) return true;
    if (cost > this.#budget) {
      if (!this.#budgetSpent && !this.#quotaStopped) {
        this.#options.emit({ type: 'quota-exhausted', message: `The tokens have ${this.#budget} request(s) left today: the next report needs ${cost}.` });
      }
      this.#budgetSpent = true;
      return false;
    }
    this.#budget -= cost;
    return true;
  }

  /** Status of these entries: interrupted, disk_full, quota_exhausted, partial, held or complete. */
  statusOf(list: readonly ProjectEntry[]): BatchStatus {
    const unfinished = list.some((e) => e.status !== 'done');
    if (this.interrupted && unfinished) return 'interrupted';
    if (this.#diskStopped !== null && unfinished) return 'disk_full';
    if ((this.#quotaStopped || this.#budgetSpent) && unfinished) return 'quota_exhausted';
    if (unfinished) return 'partial';
    return list.some((e) => e.held.length > 0 && !e.released) ? 'held' : 'complete';
  }
}
