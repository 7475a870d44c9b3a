// `geo-reports doctor`: where this account's API puts every value the reports use, in at most 10 requests.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { isAbsolute, join, resolve } from 'node:path';
import { TOKEN_ENV } from '../config/environment.js';
import { DOCTOR_MAX_REQUESTS } from '../doctor/budget.js';
import type { Diagnosis } from '../doctor/diagnose.js';
import { EXIT } from '../exit-codes.js';
import { defineCommand, positiveInteger, table, UsageError, type CommandContext, type ValueParser } from './define.js';
import { API_OPTIONS, withClient } from './shared.js';

/** A file or folder path, not blank. */
const pathValue: ValueParser<string> = (text, name) => {
  if (text.trim() === '') throw new UsageError(`${name} needs a path.`);
  return text;
};

export default defineCommand(
  {
    name: 'doctor',
    description: `Checks, against the live API and in at most ${DOCTOR_MAX_REQUESTS} requests (the project list, competitors, statistics,
one report of one project and the reads it needs, its latest scan), where the service puts every value the reports use.
Prints, for each value, the path where it was found or "not found", then every key of the answers that
nothing reads, with a sample of its value, and whether the latest scan has each scan section's input.`,
    options: {
      project: { type: 'string', value: 'ID', parse: positiveInteger, help: 'the project whose report is read (default: the first active one)' },
      'write-config': {
        type: 'string',
        value: 'FILE',
        parse: pathValue,
        help: 'write the api.fields block that makes every found value explicit (merged into FILE when it exists; the rest of the file is kept)',
      },
      save: { type: 'string', value: 'DIR', parse: pathValue, help: 'save the raw answers (tokens removed) into DIR, for a support ticket' },
      ...API_OPTIONS,
    },
    epilog: `Exit codes: ${EXIT.ok} the project list and a report with a GEO score were read; ${EXIT.failure} they were not; ${EXIT.quota} quota used up.`,
  },
  async ({ options }, ctx) => {
    // What the work needs is loaded when it runs: the command's --help loads the declaration above alone.
    const [{ diagnose, fieldMapOf }, { shortWebhookSecretWarning }] = await Promise.all([
      import('../doctor/diagnose.js'),
      import('../config/webhook-secret.js'),
    ]);
    const { project: projectId } = options;
    const writeConfig = options['write-config'] === undefined ? null : inside(ctx, options['write-config']);
    const saveDir = options.save === undefined ? null : inside(ctx, options.save);
    let templatesDir: string | null = null;
    const diagnosis = await withClient(options, ctx, (client, config) => {
      templatesDir = config.report.templates ?? null;
      return diagnose({ client, fields: config.api.fields, ...(projectId === undefined ? {} : { projectId }) });
    });

    if (saveDir !== null) await saveAnswers(saveDir, diagnosis, ctx);
    if (writeConfig !== null) await writeFieldMap(writeConfig, diagnosis);
    // What the setup holds beside the API: a signing secret the listener takes though it is short.
    // And the phrases: a key a language lacks (shown in English) or one of the agency's nothing uses (a typo).
    const phrases = await phraseWarnings(templatesDir);
    const warnings = [shortWebhookSecretWarning(ctx.env), ...phrases].filter((w): w is string => w !== null);
    if (options.json) {
      const { answers: _answers, ...rest } = diagnosis;
      ctx.stdout.write(`${JSON.stringify({ ...rest, fields: fieldMapOf(diagnosis), warnings }, null, 2)}\n`);
    } else {
      ctx.stdout.write(`${describe(diagnosis)}\n`);
      if (warnings.length > 0) ctx.stdout.write(`\nWarnings:\n${warnings.map((w) => `  - ${w}`).join('\n')}\n`);
      if (writeConfig !== null) ctx.stdout.write(`\nWrote api.fields (${Object.keys(fieldMapOf(diagnosis)).length} values) to ${writeConfig}\n`);
      if (saveDir !== null) ctx.stdout.write(`Saved the raw answers (tokens removed) to ${saveDir}\n`);
    }
    return diagnosis.essentialsRead ? EXIT.ok : EXIT.failure;
  },
);

/** `value` from the working folder of the command. */
function inside(ctx: CommandContext, value: string): string {
  return isAbsolute(value) ? value : resolve(ctx.cwd, value);
}

function describe(d: Diagnosis): string {
  const head =
    d.project === null
      ? 'No project to read a report of.'
      : `Project ${d.project.id}${d.project.name === null ? '' : ` (${d.project.name})`}: report ${d.reportId ?? '(no id)'}, status ${d.reportStatus ?? '(none)'}; ${d.requests} request(s).`;
  const found = d.findings.filter((f) => f.path !== null).length;
  const parts = [
    head,
    '',
    `Values the reports use: ${found} of ${d.findings.length} found`,
    table(
      ['Value', 'From', 'Where'],
      d.findings.map((f) => [f.label, f.source, f.path ?? 'not found']),
    ),
  ];
  if (d.unread.length > 0) {
    parts.push('', `Keys nothing reads (${d.unread.length}): shown in "other data" on the report when they sit in it`);
    parts.push(
      table(
        ['Answer', 'Path', 'Sample'],
        d.unread.map((u) => [u.answer, u.path, u.sample]),
      ),
    );
  }
  if (d.unnamed.length > 0) {
    parts.push(
      '',
      `Keys no locale names (${d.unnamed.length}): the report shows them as the API names them; add "metric.<key>" to each locale file to name them`,
      `  ${d.unnamed.join(', ')}`,
    );
  }
  if (d.sections.length > 0) {
    const scanId = d.sections[0]?.scanId ?? null;
    parts.push('', scanId === null ? 'Scan sections: no scan read' : `Scan sections, in scan ${scanId}:`);
    parts.push(
      table(
        ['Section', 'Needs', 'Input'],
        d.sections.map((s) => [
          s.name,
          s.needs,
          s.found === null ? 'not checked' : s.found ? `found${s.where === null ? '' : ` at ${s.where}`}` : 'not found: the section is left out',
        ]),
      ),
    );
    parts.push(`seo_steps (the SEO audit's steps the sections read): ${d.seoSteps}`);
  }
  if (d.notes.length > 0) parts.push('', 'Data notes:', ...d.notes.map((n) => `  - ${n}`));
  if (d.problems.length > 0) parts.push('', 'Problems:', ...d.problems.map((p) => `  - ${p}`));
  parts.push(
    '',
    d.essentialsRead
      ? 'Essentials read: the project list and a report with a GEO score.'
      : 'Essentials NOT read: no GEO score was found in the report. Map it with api.fields in the config (see docs/api-assumptions.md), then run doctor again.',
  );
  return parts.join('\n');
}

async function writeFieldMap(path: string, diagnosis: Diagnosis): Promise<void> {
  const [{ fieldMapOf }, { writeFileAtomic }] = await Promise.all([import('../doctor/diagnose.js'), import('../output/store.js')]);
  let config: Record<string, unknown> = {};
  try {
    const parsed: unknown = JSON.parse(await readFile(path, 'utf8'));
    if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) config = parsed as Record<string, unknown>;
    else throw new UsageError(`--write-config: ${path} does not hold a JSON object; nothing was written.`);
  } catch (error) {
    if (error instanceof UsageError) throw error;
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
      throw new UsageError(`--write-config: ${path} exists but is not valid JSON; nothing was written.`, {
        hint: 'Give a new file name, or fix the file first.',
      });
    }
  }
  const api = config['api'] !== null && typeof config['api'] === 'object' ? (config['api'] as Record<string, unknown>) : {};
  config['api'] = { ...api, fields: fieldMapOf(diagnosis) };
  await writeFileAtomic(path, `${JSON.stringify(config, null, 2)}\n`);
}

async function saveAnswers(dir: string, diagnosis: Diagnosis, ctx: CommandContext): Promise<void> {
  await mkdir(dir, { recursive: true });
  // The transport already replaces an echoed token by its label; this removes any other copy.
  const tokens = (ctx.env[TOKEN_ENV] ?? '')
    .split(',')
    .map((t) => t.trim())
    .filter((t) => t.length >= 4);
  for (const [name, data] of Object.entries(diagnosis.answers)) {
    let text = `${JSON.stringify(data, null, 2)}\n`;
    for (const token of tokens) text = text.replaceAll(token, '[token removed]');
    await writeFile(join(dir, `${name}.json`), text, { mode: 0o600 });
  }
}

/** The locale files' warnings (missing and unused keys), built-in and the agency's folder over them, as lines. */
async function phraseWarnings(agencyDir: string | null): Promise<string[]> {
  const [{ readTemplateSet }, { localeKeyProblems }] = await Promise.all([
    import('../render/template-check/set.js'),
    import('../render/template-check/load.js'),
  ]);
  const set = await readTemplateSet(agencyDir === null ? {} : { agencyDir });
  return localeKeyProblems(set).map((problem) => `${problem.file}: ${problem.message}`);
}
