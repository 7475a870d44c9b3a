// The preview command's work: config, templates and data read once, the server started, the files watched, and
// everything closed again on SIGINT / SIGTERM. Loaded only when `preview` runs.
import { resolve } from 'node:path';
import { isLoopbackHost, loadConfig } from '../config/load.js';
import { ConfigError } from '../errors.js';
import type { Language } from '../report/model.js';
import { findBrowser } from '../render/browser.js';
import { TemplateCompiler } from '../render/html.js';
import { PdfPrinter } from '../render/pdf.js';
import { openPreviewData } from '../preview/data.js';
import { startPreviewServer, type PreviewSetup } from '../preview/server.js';
import { watchFiles } from '../preview/watch.js';
import { brandingFrom } from '../config/branding.js';
import type { CommandContext } from './context.js';
import { loadCommandTemplates, templatesFolder } from './templates-setup.js';

export interface PreviewOptions {
  period: string;
  port: number;
  host: string;
  projectId?: number;
  out?: string;
  templates?: string;
  language?: Language;
  config?: string;
}

export async function runPreview(options: PreviewOptions, ctx: CommandContext): Promise<void> {
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
    printer ??= PdfPrinter.launch({ ...findBrowser({ env: ctx.env }), pages: 1 }).catch((error: unknown) => {
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
