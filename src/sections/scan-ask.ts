// Asking for a scan: `include` of the scan sections the report sections need (values the spec lists), and
// `seo_steps` of the audit steps they read, a narrowing whose full list the spec does not show (it names two). A
// service that refuses the narrowing is asked once more without it, and not asked with it again in the run: an
// optional narrowing never costs a report. Doctor asks through the same object and says what it learnt.
import type { ScanReadOptions } from '../api/client.js';
import { ApiError, AuthenticationError, NotFoundError, QuotaExhaustedError } from '../api/errors.js';
import type { JsonRecord } from '../spec/find.js';
import type { ScanSection } from '../spec/vocabulary.js';
import { scanRequest } from './scan.js';
import type { Section } from './unit.js';

/** One scan read: what was asked, what came back. */
export interface AskedScan {
  data: JsonRecord;
  include: ScanSection[];
  /** The steps the answer was narrowed to; empty when asked without `seo_steps` (the whole audit came back). */
  seoSteps: string[];
}

/** Sends one request (the batch's lane and stop rules); null when the run stops sending. */
export type SendScanRead = (options: ScanReadOptions) => Promise<JsonRecord | null>;

/** True when `error` is the service refusing the request as sent (400, or an error that names `seo_steps`). */
export function refusesSeoSteps(error: unknown): boolean {
  if (!(error instanceof ApiError)) return false;
  if (error instanceof AuthenticationError || error instanceof NotFoundError || error instanceof QuotaExhaustedError) return false;
  const status = error.call.status;
  return status === 400 || (status !== null && status >= 400 && status < 500 && /seo[_\s-]?steps/i.test(error.message));
}

/** What a run (or doctor) has learnt of the service's answer to `seo_steps`. */
export class ScanAsk {
  #refusal: string | null = null;
  #accepted = false;
  /** The first read with `seo_steps`, until its answer is known: the others wait for it, so one run retries once. */
  #probe: Promise<void> | null = null;

  /** The service's refusal of `seo_steps` (its message), once met; null while it takes them or was not asked. */
  get seoStepsRefused(): string | null {
    return this.#refusal;
  }

  /** What doctor prints: taken, refused (and read without), or not asked. */
  describe(): string {
    if (this.#refusal !== null) return `refused (${this.#refusal}); scans are read without seo_steps (the whole SEO audit)`;
    return this.#accepted ? 'taken' : 'not asked';
  }

  /**
   * Reads a scan for `sections`: with `seo_steps` unless refused before; refused now, once more without it
   * (`onRetry` first, which may say no: the run's budget). Null when `send` or `onRetry` says stop.
   */
  async read(sections: readonly Section[], send: SendScanRead, onRetry: () => boolean): Promise<AskedScan | null> {
    const { include, seoSteps } = scanRequest(sections);
    if (seoSteps.length === 0 || this.#refusal !== null) return this.#without(include, send);
    if (!this.#accepted && this.#probe !== null) {
      await this.#probe;
      return this.read(sections, send, onRetry);
    }
    let settle = (): void => {};
    const first = !this.#accepted;
    if (first) this.#probe = new Promise<void>((resolve) => (settle = resolve));
    try {
      const data = await send({ include, seoSteps });
      if (data !== null) this.#accepted = true;
      return data === null ? null : { data, include, seoSteps };
    } catch (error) {
      if (!refusesSeoSteps(error)) throw error;
      this.#refusal = error instanceof Error ? error.message : String(error);
      settle();
      if (!onRetry()) return null;
      return await this.#without(include, send);
    } finally {
      if (first) {
        settle();
        this.#probe = null;
      }
    }
  }

  async #without(include: ScanSection[], send: SendScanRead): Promise<AskedScan | null> {
    const data = await send({ include });
    return data === null ? null : { data, include, seoSteps: [] };
  }
}
