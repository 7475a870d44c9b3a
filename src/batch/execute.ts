// The batch as a command runs it (run, report, demo and schedule): the browser found and made to print first, the
// progress shown, runBatch, and the exit code of the period's status.
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import type { ApiClient } from '../api/client.js';
import type { CommandContext } from '../command-context.js';
import { brandingFrom } from '../config/branding.js';
import { CHROMIUM_SANDBOX_ENV } from '../config/environment.js';
import { BROWSER_WS_ENDPOINT_ENV, resolveBrowserEndpoint } from '../config/load.js';
import type { Config } from '../config/schema.js';
import { ConfigError } from '../errors.js';
import { EXIT, type ExitCode } from '../exit-codes.js';
import { browserStartFix, findBrowser, type BrowserChoice } from '../render/print/browser.js';
import type { HtmlRenderer } from '../render/html.js';
import { isSvgLogo, mailLogo, mailLogoCache } from '../render/mail-logo.js';
import { BrowserStartError, describeEndpoint, PdfPrinter, type PdfPrinterOptions } from '../render/print/printer.js';
import { qpdfVersion } from '../render/print/protect.js';
import { boundHeapGrowth } from './heap.js';
import type { Selection } from './plan.js';
import { createProgress } from './progress.js';
import { runBatch, type BatchEvent, type BatchResult, type BatchStatus } from './run.js';
import type { MonthPeriod, ReviewPeriod } from '../period.js';
import { makeReviews, type ReviewOptions, type ReviewOutcome } from './review.js';

/** How a period's status ends the command. */
export const EXIT_FOR_STATUS: Record<BatchStatus, ExitCode> = {
  complete: EXIT.ok,
  held: EXIT.held,
  partial: EXIT.failure,
  quota_exhausted: EXIT.quota,
  // Like any file-system error: someone must free room (or remount) before the next run can finish the period.
  disk_full: EXIT.usage,
  interrupted: EXIT.sigint,
};

/** Concurrent projects: API calls are light, printing is bound by the cores. */
export function defaultConcurrency(): number {
  return Math.max(2, Math.min(8, availableParallelism() * 2));
}

/**
 * Chromium pages printing at once: one per core. A print keeps about one core busy between Chromium's
 * processes and Node's own share (HTML, files, DevTools), so more pages than cores only contend: measured
 * on 2 cores, 2 pages print 8% faster than 3, and 1 page leaves the machine half idle.
 */
export function defaultPrintConcurrency(): number {
  return Math.max(2, Math.min(6, availableParallelism()));
}

export interface BatchCommandOptions {
  client: ApiClient;
  config: Config;
  period: MonthPeriod;
  outDir: string;
  selection: Selection;
  concurrency?: number;
  dryRun?: boolean;
  acceptHeld?: boolean;
  /** Make the period's done reports again from their saved data (run --remake): see BatchOptions.remake. */
  remake?: boolean;
  json?: boolean;
  /** Local Chromium to use; default: found with findBrowser(env). */
  browser?: BrowserChoice;
  /** The --browser-ws-endpoint flag: print on that remote browser (else GEO_REPORTS_BROWSER_WS_ENDPOINT, then the config). */
  browserWSEndpoint?: string;
  /** The command's templates, checked (commandRenderer): before the browser is looked for, a broken one stopped the command. */
  renderer: HtmlRenderer;
}

/** Starts the run's browser and prints a blank page; a failure is a BrowserStartError naming the browser and the fix. */
async function startBrowser(getPrinter: () => Promise<PdfPrinter>, options: PdfPrinterOptions): Promise<void> {
  try {
    await (await getPrinter()).printBlank();
  } catch (error) {
    const said = errorText(error);
    if (options.browserWSEndpoint !== undefined) {
      throw new BrowserStartError(
        `The remote browser at ${describeEndpoint(options.browserWSEndpoint)} could not print a blank page: ${said}. No report was asked for.`,
        {
          hint: 'Check that the browser is running and that --browser-ws-endpoint (or GEO_REPORTS_BROWSER_WS_ENDPOINT, or render.browserWSEndpoint) is its DevTools WebSocket URL, ws://host:port/devtools/browser/<id>; then run the same command again.',
          cause: error,
        },
      );
    }
    throw new BrowserStartError(`The browser ${options.executablePath} could not start and print a blank page: ${said}. No report was asked for.`, {
      hint: `${browserStartFix(options.executablePath, said)} Then run the same command again.`,
      cause: error,
    });
  }
}

/** An error and its causes in a few lines (Chromium's own words are in the cause of a launch error). */
function errorText(error: unknown): string {
  const parts: string[] = [];
  for (let e: unknown = error; e !== undefined && e !== null && parts.length < 3; e = e instanceof Error ? e.cause : undefined) {
    parts.push(e instanceof Error ? e.message : typeof e === 'string' ? e : JSON.stringify(e));
  }
  const lines = parts
    .join(' ')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '');
  return lines.slice(0, 6).join(' ').slice(0, 600);
}

export async function executeBatch(options: BatchCommandOptions, ctx: CommandContext): Promise<{ code: number; result: BatchResult }> {
  const { renderer } = options;
  const limits = {
    pages: defaultPrintConcurrency(),
    timeoutMs: options.config.report.printTimeoutMs,
    restartEvery: options.config.report.browserRestartEvery,
  };
  const browserWSEndpoint = resolveBrowserEndpoint(options.browserWSEndpoint, ctx.env[BROWSER_WS_ENDPOINT_ENV], options.config);
  // Found before any report is asked for: a missing browser must not cost a night of quota. A remote
  // browser means no local Chromium is looked for at all.
  let printerOptions: PdfPrinterOptions | null = null;
  if (options.dryRun !== true) {
    const sandbox = ctx.env[CHROMIUM_SANDBOX_ENV]?.trim().toLowerCase() !== 'off';
    printerOptions =
      browserWSEndpoint !== undefined ? { browserWSEndpoint, ...limits } : { ...(options.browser ?? findBrowser({ env: ctx.env })), sandbox, ...limits };
  }
  const pdfPassword = await pdfPasswordFor(options.config, ctx.env, options.dryRun === true);
  // A run's garbage is the same for every report: its peak memory must not grow with the number of projects.
  boundHeapGrowth();
  const progress = createProgress(ctx, options.json === true);
  let printer: Promise<PdfPrinter> | null = null;
  const getPrinter = (): Promise<PdfPrinter> => {
    if (printerOptions === null) return Promise.reject(new Error('A dry run prints nothing.'));
    printer ??= PdfPrinter.launch(printerOptions);
    return printer;
  };
  try {
    // Started (or reached) and made to print a blank page before the first request: a browser that cannot print
    // must not cost the quota of the reports it would fail.
    if (printerOptions !== null) await startBrowser(getPrinter, printerOptions);
    const branding = await brandingFrom(options.config);
    // An SVG logo is drawn for the mail now, on the browser already open: the send after the run reads it back.
    if (printerOptions !== null && isSvgLogo(branding.logoDataUri)) {
      const printing = await getPrinter();
      await mailLogo(branding.logoDataUri, {
        cacheDir: mailLogoCache(resolve(ctx.cwd, options.outDir)),
        draw: () => Promise.resolve((job) => printing.picture(job)),
      });
    }
    const result = await runBatch({
      client: options.client,
      config: options.config,
      period: options.period,
      outDir: resolve(ctx.cwd, options.outDir),
      selection: options.selection,
      concurrency: options.concurrency ?? options.config.report.concurrency ?? defaultConcurrency(),
      printConcurrency: defaultPrintConcurrency(),
      dryRun: options.dryRun === true,
      acceptHeld: options.acceptHeld === true,
      remake: options.remake === true,
      renderer,
      printer: getPrinter,
      branding,
      ...(pdfPassword === null ? {} : { pdfPassword }),
      clock: ctx.clock,
      signal: ctx.signal,
      onEvent: (event: BatchEvent) => progress.event(event),
    });
    // Last, under the summary, where a script's log and a user's terminal both end.
    if (result.diskStop !== null) ctx.stderr.write(`Error: ${result.diskStop.message}\nFix: ${result.diskStop.hint}\n`);
    return { code: options.dryRun === true ? EXIT.ok : EXIT_FOR_STATUS[result.status], result };
  } finally {
    progress.close();
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- set by getPrinter during the run
    if (printer !== null) await (await (printer as Promise<PdfPrinter>).catch(() => null))?.close();
    // The run owns the client from here: no keep-alive socket outlives it.
    await options.client.close();
  }
}

/**
 * The PDFs' password, from the variable report.pdf.encryptWithEnv names; null when the key is absent. Checked before
 * any request: a variable that is not set, or no qpdf, stops the run while it has cost nothing.
 */
async function pdfPasswordFor(config: Config, env: NodeJS.ProcessEnv, dryRun: boolean): Promise<string | null> {
  const name = config.report.pdf.encryptWithEnv;
  if (name === undefined) return null;
  const password = env[name] ?? '';
  if (password === '') {
    throw new ConfigError(`report.pdf.encryptWithEnv names ${name}, which is not set: the PDFs would go out without their password.`, {
      hint: `Set ${name} to the password in the environment of the run, or remove report.pdf.encryptWithEnv to send PDFs that open without one.`,
    });
  }
  if (!dryRun && (await qpdfVersion()) === null) {
    throw new ConfigError('report.pdf.encryptWithEnv asks for encrypted PDFs, and qpdf is not installed.', {
      hint: 'Install qpdf (Debian/Ubuntu: apt-get install qpdf, or scripts/install.sh; macOS: brew install qpdf).',
    });
  }
  return password;
}

export interface ReviewCommandOptions {
  config: Config;
  period: ReviewPeriod;
  outDir: string;
  selection: ReviewOptions['selection'];
  renderer: HtmlRenderer;
  json?: boolean;
  browser?: BrowserChoice;
  browserWSEndpoint?: string;
}

/**
 * `run --period 2026-Q3` / `2026`: the reviews of a quarter or a year, from the saved months, with no request. The
 * browser is found and made to print first, like a monthly run's; the exit code is 0 when every review is made.
 */
export async function executeReview(options: ReviewCommandOptions, ctx: CommandContext): Promise<{ code: number; outcome: ReviewOutcome }> {
  const limits = { pages: 1, timeoutMs: options.config.report.printTimeoutMs, restartEvery: options.config.report.browserRestartEvery };
  const browserWSEndpoint = resolveBrowserEndpoint(options.browserWSEndpoint, ctx.env[BROWSER_WS_ENDPOINT_ENV], options.config);
  const sandbox = ctx.env[CHROMIUM_SANDBOX_ENV]?.trim().toLowerCase() !== 'off';
  const printerOptions: PdfPrinterOptions =
    browserWSEndpoint !== undefined ? { browserWSEndpoint, ...limits } : { ...(options.browser ?? findBrowser({ env: ctx.env })), sandbox, ...limits };
  const pdfPassword = await pdfPasswordFor(options.config, ctx.env, false);
  let printer: Promise<PdfPrinter> | null = null;
  const getPrinter = (): Promise<PdfPrinter> => (printer ??= PdfPrinter.launch(printerOptions));
  const json = options.json === true;
  const log = (line: string): void => {
    if (!json) ctx.stdout.write(`${line}\n`);
  };
  try {
    await startBrowser(getPrinter, printerOptions);
    const outDir = resolve(ctx.cwd, options.outDir);
    log(`Reviews of ${options.period}, from the months saved in ${outDir} (no request to the service):`);
    const outcome = await makeReviews({
      config: options.config,
      period: options.period,
      outDir,
      selection: options.selection,
      renderer: options.renderer,
      printer: getPrinter,
      branding: await brandingFrom(options.config),
      clock: ctx.clock,
      ...(pdfPassword === null ? {} : { pdfPassword }),
      log,
    });
    const said = `${outcome.made} review(s) made, ${outcome.kept} already made, ${outcome.failed.length} not made; requests to the service: 0. Folder: ${outcome.periodDir}`;
    if (json) {
      ctx.stdout.write(
        `${JSON.stringify({ type: 'review', period: options.period, made: outcome.made, kept: outcome.kept, failed: outcome.failed, requests: 0, periodDir: outcome.periodDir })}\n`,
      );
    } else log(said);
    return { code: outcome.failed.length > 0 ? EXIT.failure : EXIT.ok, outcome };
  } finally {
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- set by getPrinter during the run
    if (printer !== null) await (await (printer as Promise<PdfPrinter>).catch(() => null))?.close();
  }
}
