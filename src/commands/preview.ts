// `geo-reports preview`: a project's report in the browser, made from saved or sample data with the agency's
// templates, reloaded at every save. It sends no request to the API.
import { LANGUAGES } from '../i18n/locales.js';
import { EXIT } from '../exit-codes.js';
import { choice, integer, positiveInteger } from './args.js';
import { defineCommand } from './define.js';
import { BATCH_OPTIONS, periodOrPrevious } from './run.js';

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
    const { runPreview } = await import('./preview-runner.js');
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
