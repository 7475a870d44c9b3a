// `geo-reports template init DIR` and `geo-reports template check`: make an agency's template folder, and find
// every problem in one before it makes a report.
import { resolve } from 'node:path';
import { EXIT } from '../exit-codes.js';
import { defineCommand, printResult, subcommandOf, UsageError } from './define.js';
import { BATCH_OPTIONS, loadCommandConfig } from './shared.js';

const ACTIONS = ['init', 'check'] as const;

export default defineCommand(
  {
    name: 'template',
    usage: ['init <dir> [--force]', 'check [--templates DIR] [--config FILE]'],
    description: `The agency's own report: a template folder laid over the built-in templates. A file there replaces
the built-in file of the same path; assets/extra.css is added after the built-in styles; locales/<lang>.json
holds only the phrases it changes. Use it with report.templates in the config or --templates DIR.

Subcommands:
  init <dir>   copy the built-in templates into <dir> with a README (refuses a folder that is not empty
               unless --force); delete the files you do not change
  check        compile every template and partial of the folder, render them against sample reports in
               every language, and print each problem with its file, line and column (exit ${EXIT.usage} on an error)

Then \`geo-reports preview --templates DIR\` shows a report in the browser, reloaded at every save.`,
    args: {
      subcommand: { help: ACTIONS.join(', '), parse: subcommandOf('template', ACTIONS) },
      dir: { help: 'with init: the folder to make' },
    },
    options: {
      force: { type: 'boolean', help: 'with init: write into a folder that is not empty (files of the same name are replaced)' },
      templates: { ...BATCH_OPTIONS.templates, help: 'with check: the folder to check (default: report.templates in the config)' },
      config: { type: 'string', value: 'FILE', help: 'config file (default: config/geo-reports.json when present)' },
      json: { type: 'boolean', help: 'print the result as JSON' },
    },
  },
  async ({ options, args, given }, ctx) => {
    // What the work needs is loaded when it runs: the command's --help loads the declaration above alone.
    const [{ initTemplateFolder }, { checkCommandTemplates }, { formatProblem }] = await Promise.all([
      import('../output/template-folder.js'),
      import('../preview/command-templates.js'),
      import('../render/template-check/load.js'),
    ]);
    const { subcommand, dir } = args;
    if (subcommand === undefined) throw new UsageError('template: missing subcommand (init or check).', { hint: 'Run `geo-reports template --help`.' });
    if (subcommand === 'init') {
      if (dir === undefined)
        throw new UsageError('template init: missing <dir>, the folder to make.', { hint: 'Example: geo-reports template init my-templates' });
      if (given.has('templates')) throw new UsageError('template init: --templates is for check; give the folder as <dir>.');
      const target = resolve(ctx.cwd, dir);
      const files = await initTemplateFolder(target, { force: options.force });
      printResult(ctx, options.json, { dir: target, files }, () =>
        [
          `Wrote ${files.length} files into ${target} (see its README.md).`,
          'Next: delete the files you do not change, edit the others, then',
          `  geo-reports template check --templates ${target}`,
          `  geo-reports preview --templates ${target}`,
          'and set "report": { "templates": "<folder, relative to the config file>" } in the config for the monthly run.',
        ].join('\n'),
      );
      return EXIT.ok;
    }
    if (dir !== undefined) throw new UsageError(`template check: unexpected argument "${dir}"; give the folder with --templates DIR.`);
    if (given.has('force')) throw new UsageError('template check: --force is for init.');
    const config = await loadCommandConfig(options, ctx);
    const { dir: checked, problems } = await checkCommandTemplates(options.templates, config, ctx);
    const errors = problems.filter((p) => p.severity === 'error').length;
    const warnings = problems.length - errors;
    const folder = checked ?? 'the built-in templates (no --templates and no report.templates)';
    printResult(ctx, options.json, { folder: checked, errors, warnings, problems }, () =>
      [
        ...problems.map(formatProblem),
        `${problems.length === 0 ? 'No problem' : `${errors} error${errors === 1 ? '' : 's'}, ${warnings} warning${warnings === 1 ? '' : 's'}`} in ${folder}.`,
      ].join('\n'),
    );
    return errors > 0 ? EXIT.usage : EXIT.ok;
  },
);
