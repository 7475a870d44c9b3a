// The templates of a command that renders: the folder of --templates, else report.templates of the config, over
// the built-in ones. Read, checked and rendered against sample pages before the command asks the API anything or
// starts Chromium: a broken template stops it at once (exit 2) with the file, line and column.
import { resolve } from 'node:path';
import type { CommandContext } from '../command-context.js';
import type { Config } from '../config/schema.js';
import { createHtmlRenderer, type EmbeddedFonts, type HtmlRenderer, type TemplateCompiler } from '../render/html.js';
import { formatProblem, loadTemplates, TemplateError, type PreparedTemplates, type TemplateProblem } from '../render/template-check/load.js';
import { brandingFrom } from '../config/branding.js';

/** The agency folder of a command (absolute) and where it was given, or null for the built-in templates alone. */
export function templatesFolder(flag: string | undefined, config: Config): { dir: string; source: string } | null {
  // report.templates was made absolute (relative to the config file) and checked when the config was read.
  if (flag !== undefined) return { dir: flag, source: '--templates' };
  if (config.report.templates !== undefined) return { dir: config.report.templates, source: 'report.templates' };
  return null;
}

export interface CommandTemplates {
  renderer: HtmlRenderer;
  prepared: PreparedTemplates;
  /** The warnings of the set (unescaped output, files nothing reads…), for `template check`. */
  warnings: TemplateProblem[];
}

export interface LoadCommandTemplatesOptions {
  /** Render the sample pages as well (every command that makes real reports). @default true */
  checkSamples?: boolean;
  /** Fonts read by an earlier renderer. */
  fonts?: EmbeddedFonts;
  /** What earlier renderers compiled (the preview's session). */
  compiler?: TemplateCompiler;
  /** `index` for a command that only writes the agency index (send, merge): see ReadTemplateSetOptions. @default 'all' */
  pages?: 'all' | 'index';
}

/**
 * The renderer of the command's templates; a TemplateError listing every error of the set otherwise. An agency
 * folder is also rendered against the sample pages (the built-in set is, by the test suite).
 */
export async function loadCommandTemplates(
  flag: string | undefined,
  config: Config,
  ctx: Pick<CommandContext, 'cwd' | 'clock'>,
  options: LoadCommandTemplatesOptions = {},
): Promise<CommandTemplates> {
  const folder = templatesFolder(flag === undefined ? undefined : resolve(ctx.cwd, flag), config);
  const prepared = await loadTemplates({
    ...(folder === null ? {} : { agencyDir: folder.dir, source: folder.source }),
    ...(options.pages === undefined ? {} : { pages: options.pages }),
  });
  const renderer = await createHtmlRenderer({
    templates: prepared,
    ...(options.fonts === undefined ? {} : { fonts: options.fonts }),
    ...(options.compiler === undefined ? {} : { compiler: options.compiler }),
  });
  const warnings = [...prepared.warnings];
  if (folder !== null && options.checkSamples !== false) {
    // The sample pages (the simulator's sample account) are loaded only when there is an agency folder to try on them.
    const { renderSamples } = await import('./samples.js');
    const problems = await renderSamples({ renderer, config, branding: await brandingFrom(config), clock: ctx.clock }, prepared.set, prepared);
    if (problems.length > 0) {
      throw new TemplateError(
        `The template folder ${prepared.set.agencyDir ?? ''} cannot render a report:\n${problems.map((p) => `  ${formatProblem(p)}`).join('\n')}`,
        // The warnings too, for `template check`, which lists everything.
        [...problems, ...warnings],
        { hint: `Fix the template; \`geo-reports template check --templates ${prepared.set.agencyDir ?? ''}\` lists every problem.` },
      );
    }
  }
  return { renderer, prepared, warnings };
}

/** The renderer of a command that makes reports; the set's warnings are counted on stderr, not listed. */
export async function commandRenderer(
  flag: string | undefined,
  config: Config,
  ctx: Pick<CommandContext, 'cwd' | 'clock' | 'stderr'>,
  options: Pick<LoadCommandTemplatesOptions, 'pages'> = {},
): Promise<HtmlRenderer> {
  const { renderer, prepared, warnings } = await loadCommandTemplates(flag, config, ctx, options);
  if (warnings.length > 0 && prepared.set.agencyDir !== null) {
    ctx.stderr.write(
      `Note: the template folder ${prepared.set.agencyDir} has ${warnings.length} warning${warnings.length === 1 ? '' : 's'}; \`geo-reports template check --templates ${prepared.set.agencyDir}\` lists them.\n`,
    );
  }
  return renderer;
}

/** Every problem of the command's templates, errors and warnings, each with its file and line; none stops here. */
export async function checkCommandTemplates(
  flag: string | undefined,
  config: Config,
  ctx: Pick<CommandContext, 'cwd' | 'clock'>,
): Promise<{ dir: string | null; problems: TemplateProblem[] }> {
  const folder = templatesFolder(flag === undefined ? undefined : resolve(ctx.cwd, flag), config);
  let loaded: CommandTemplates;
  try {
    loaded = await loadCommandTemplates(flag, config, ctx);
  } catch (error) {
    // A folder that cannot be read at all (missing, a file) has no list: its error is the answer.
    if (error instanceof TemplateError && error.problems.length > 0) return { dir: folder?.dir ?? null, problems: [...error.problems] };
    throw error;
  }
  return { dir: loaded.prepared.set.agencyDir, problems: loaded.warnings };
}
