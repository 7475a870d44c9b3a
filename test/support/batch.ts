// The monthly batch wired as the CLI wires it (API client on a simulator, config, branding, locales, renderer, one
// shared Chromium), for integration tests that call runBatch in process. A test says only what it changes.
import { ApiClient } from '../../src/api/client.js';
import { TokenPool } from '../../src/api/tokens.js';
import { runBatch, type BatchOptions, type BatchResult } from '../../src/batch/run.js';
import { brandingFrom } from '../../src/config/branding.js';
import { ConfigSchema, type Config } from '../../src/config/schema.js';
import { loadLocales } from '../../src/i18n/locales.js';
import { findChromium } from '../../src/render/print/browser.js';
import { createHtmlRenderer, type HtmlRenderer } from '../../src/render/html.js';
import { PdfPrinter } from '../../src/render/print/printer.js';
import { toMonth, type MonthPeriod } from '../../src/period.js';

export interface TestBatch extends Partial<Omit<BatchOptions, 'client' | 'config'>> {
  /** Base URL of the simulator. */
  baseUrl: string;
  tokens: readonly string[];
  period: MonthPeriod;
  outDir: string;
  /** @default the defaults of an empty config file */
  config?: Config;
  /** Clock of the client and the run. @default 06:00 UTC on 4 November 2026 */
  clock?: () => Date;
}

export interface BatchRig {
  renderer: HtmlRenderer;
  printer: PdfPrinter;
  /** Runs one batch; its client is closed afterwards. */
  run(batch: TestBatch): Promise<BatchResult>;
  /**
   * September then October 2026, each run on the 4th of the month after (the monthly run's day), `setNow` moving the
   * simulator's clock there first: the two months a report compares.
   */
  runSeptemberThenOctober(batch: Omit<TestBatch, 'period' | 'clock'>, setNow: (now: Date) => void): Promise<BatchResult[]>;
  /** Closes Chromium. */
  close(): Promise<void>;
}

/** One renderer and one Chromium (3 pages) for all the batches of a test file. */
export async function startBatchRig(): Promise<BatchRig> {
  const renderer = await createHtmlRenderer({ locales: loadLocales() });
  const printer = await PdfPrinter.launch({ executablePath: findChromium({ env: process.env }), pages: 3 });
  const rig: BatchRig = {
    renderer,
    printer,
    // An agency that writes English (report.language given): the simulator marks some projects French, and only the
    // tests about languages let the project's language decide.
    async run({ baseUrl, tokens, config = ConfigSchema.parse({ report: { language: 'en' } }), clock = () => new Date('2026-11-04T06:00:00Z'), ...overrides }) {
      const client = new ApiClient({ baseUrl, tokens: new TokenPool([...tokens], { clock }), clock });
      try {
        return await runBatch({
          client,
          config,
          selection: { statuses: ['active'], projectIds: [] },
          concurrency: 4,
          printConcurrency: 3,
          renderer,
          printer: async () => printer,
          branding: await brandingFrom(config),
          clock,
          // Report polling does not wait: the simulator's clock is the test's.
          sleep: async () => {},
          ...overrides,
        });
      } finally {
        await client.close();
      }
    },
    async runSeptemberThenOctober(batch, setNow) {
      const results: BatchResult[] = [];
      for (const [period, iso] of [
        ['2026-09', '2026-10-04T06:00:00Z'],
        ['2026-10', '2026-11-04T06:00:00Z'],
      ] as const) {
        const now = new Date(iso);
        setNow(now);
        results.push(await rig.run({ ...batch, period: toMonth(period), clock: () => now }));
      }
      return results;
    },
    close: () => printer.close(),
  };
  return rig;
}
