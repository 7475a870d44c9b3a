// `geo-reports preview`: a project's report in the browser, made from saved or sample data with the agency's
// templates, reloaded at every save. It sends no request to the API. Config, templates and data are read once, the
// server started, the files watched, and everything closed again on SIGINT / SIGTERM.
import { resolve } from 'node:path';
import { ConfigError } from '../errors.js';
import { EXIT } from '../exit-codes.js';
import { LANGUAGES } from '../i18n/languages.js';
import type { PreviewSetup } from '../preview/server.js';
import type { PdfPrinter } from '../render/print/printer.js';
import type { Language } from '../report/model.js';
import { choice, defineCommand, integer, positiveInteger, type CommandContext } from './define.js';
import { BATCH_OPTIONS, periodOrPrevious } from './shared.js';
import type { MonthPeriod } from '../period.js';

const DEFAULT_PREVIEW_PORT = 8790;

export default defineCommand(
  {
    name: 'preview',
    description: `Serves, on loopback, the report of a project rendered with the template folder (--templates DIR, or
report.templates in the config) by the batch's own steps, from the period's saved data.json files (<out>/<period>/),
or from the simulator's sample data when that period has none. A toolbar picks the project and the language and
opens the PDF (/report.pdf, printed on request). The page reloads by itself when a file of the template folder or
the config changes. It sends no request to the API, ever, and needs no token.

The first line of the output is the address to open. Stop with Ctrl-C.`,
    options: {
      project: { type: 'string', value: 'ID', parse: positiveInteger, help: 'the project shown first (default: the first one)' },
      period: { ...BATCH_OPTIONS.period, help: 'the period whose saved data is shown (default: the previous month)' },
      out: BATCH_OPTIONS.out,
      templates: BATCH_OPTIONS.templates,
      language: {
        type: 'string',
        value: 'L',
        parse: choice(LANGUAGES),
        help: `write every report in this language: ${LANGUAGES.join(', ')} (default: each client's)`,
      },
      port: {
        type: 'string',
        value: 'N',
        parse: integer({ min: 0, max: 65_535 }),
        default: DEFAULT_PREVIEW_PORT,
        help: 'port to listen on; 0 takes a free one',
      },
      host: { type: 'string', value: 'HOST', default: '127.0.0.1', help: 'address to listen on (loopback; anything else shows client data to the network)' },
      config: { type: 'string', value: 'FILE', help: 'config file (default: config/geo-reports.json when present)' },
    },
    stopsOnSignal: true,
  },
  async ({ options }, ctx) => {
    return runPreview(
      {
        period: periodOrPrevious(options.period, ctx),
        port: options.port,
        host: options.host,
        ...(options.project !== undefined ? { projectId: options.project } : {}),
        ...(options.out !== undefined ? { out: options.out } : {}),
        ...(options.templates !== undefined ? { templates: options.templates } : {}),
        ...(options.language !== undefined ? { language: options.language } : {}),
        ...(options.config !== undefined ? { config: options.config } : {}),
      },
      ctx,
    ).then(() => EXIT.ok);
  },
);

interface PreviewOptions {
  period: MonthPeriod;
  port: number;
  host: string;
  projectId?: number;
  out?: string;
  templates?: string;
  language?: Language;
  config?: string;
}

async function runPreview(options: PreviewOptions, ctx: CommandContext): Promise<void> {
  // What the preview needs is loaded when it runs: the command's --help loads its declaration alone.
  const [
    { brandingFrom },
    { isLoopbackHost, loadConfig },
    { loadCommandTemplates, templatesFolder },
    { openPreviewData },
    { startPreviewServer },
    { watchFiles },
    { findBrowser },
    { TemplateCompiler },
    pdf,
  ] = await Promise.all([
    import('../config/branding.js'),
    import('../config/load.js'),
    import('../preview/command-templates.js'),
    import('../preview/data.js'),
    import('../preview/server.js'),
    import('../preview/watch.js'),
    import('../render/print/browser.js'),
    import('../render/html.js'),
    import('../render/print/printer.js'),
  ]);
  // One compiler for the session: at each save, only the templates whose text changed are compiled again.
  const compiler = new TemplateCompiler();
  const readSetup = async (fonts?: PreviewSetup['renderer']['fonts']): Promise<PreviewSetup & { configPath: string | null }> => {
    const { config, path } = await loadConfig({ ...(options.config !== undefined ? { path: options.config } : {}), cwd: ctx.cwd });
    // No sample render here: the page itself is the render, and an error shows in it.
    const { renderer } = await loadCommandTemplates(options.templates, config, ctx, {
      checkSamples: false,
      compiler,
      ...(fonts === undefined ? {} : { fonts }),
    });
    return { config, renderer, branding: await brandingFrom(config), configPath: path };
  };
  // The first setup must work: a broken folder at start is an exit 2 with its errors, as for `run`.
  const first = await readSetup();
  const folder = templatesFolder(options.templates === undefined ? undefined : resolve(ctx.cwd, options.templates), first.config);
  const data = await openPreviewData({ outDir: resolve(ctx.cwd, options.out ?? first.config.output.dir), period: options.period, clock: ctx.clock });
  if (options.projectId !== undefined && !data.projects.some((p) => p.id === options.projectId)) {
    throw new ConfigError(`--project ${options.projectId} is not in ${data.description}.`, {
      hint: `Pick one of ${data.projects
        .slice(0, 12)
        .map((p) => p.id)
        .join(', ')}${data.projects.length > 12 ? ', …' : ''} (or leave --project out).`,
    });
  }

  let printer: Promise<PdfPrinter> | null = null;
  const getPrinter = (): Promise<PdfPrinter> => {
    printer ??= pdf.PdfPrinter.launch({ ...findBrowser({ env: ctx.env }), pages: 1 }).catch((error: unknown) => {
      printer = null; // the next PDF asked tries again
      throw error;
    });
    return printer;
  };
  const log = (line: string): void => void ctx.stderr.write(`${line}\n`);
  const server = await startPreviewServer({
    host: options.host,
    port: options.port,
    data,
    setup: first,
    reload: async () => readSetup(first.renderer.fonts),
    printer: getPrinter,
    ...(options.projectId !== undefined ? { projectId: options.projectId } : {}),
    ...(options.language !== undefined ? { language: options.language } : {}),
    templatesLabel: folder?.dir ?? 'the built-in templates',
    clock: ctx.clock,
    log,
  });
  const logo = first.config.agency.logo;
  const watcher = await watchFiles(
    { folders: folder === null ? [] : [folder.dir], files: [...(first.configPath === null ? [] : [first.configPath]), ...(logo === undefined ? [] : [logo])] },
    (paths) => void server.reload(paths.length === 1 ? `${paths[0]} changed` : `${paths.length} files changed`),
  );
  try {
    // The address first, alone on its line: scripts and tests read it there.
    ctx.stdout.write(`${server.url}\n`);
    log(
      `Previewing ${data.projects.length} project(s) from ${data.description}, with ${folder === null ? 'the built-in templates' : `the templates of ${folder.dir}`}.`,
    );
    const watched = [...(folder === null ? [] : [folder.dir]), ...(first.configPath === null ? [] : [first.configPath])];
    if (watched.length > 0) log(`Watching ${watched.join(' and ')}: the page reloads at every save.`);
    if (!isLoopbackHost(options.host)) log(`Warning: listening on ${options.host}, not loopback: anyone who reaches this address sees your clients' reports.`);
    log('No request goes to the API. Ctrl-C to stop.');
    await new Promise<void>((done) => {
      if (ctx.signal.aborted) done();
      else ctx.signal.addEventListener('abort', () => done(), { once: true });
    });
  } finally {
    watcher.close();
    await server.close();
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- set by getPrinter, which the flow analysis does not follow
    if (printer !== null) await (await (printer as Promise<PdfPrinter>).catch(() => null))?.close();
  }
}
