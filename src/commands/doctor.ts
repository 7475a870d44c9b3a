// `geo-reports doctor`: where this account's API puts every value the reports use, in at most 10 requests.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { isAbsolute, join, resolve } from 'node:path';
import { DOCTOR_MAX_REQUESTS, diagnose, fieldMapOf, type Diagnosis } from '../content/diagnose.js';
import { writeFileAtomic } from '../output/store.js';
import { API_OPTIONS, API_OPTIONS_HELP, optionalPositiveInt, parseCommandArgs, UsageError } from './args.js';
import { withClient } from './api-command.js';
import { table, type Command, type CommandContext } from './context.js';

const OPTIONS = {
  ...API_OPTIONS,
  project: { type: 'string' },
  'write-config': { type: 'string' },
  save: { type: 'string' },
} as const;

const HELP = `Usage: geo-reports doctor [--project ID] [--write-config FILE] [--save DIR]

Checks, against the live API and in at most ${DOCTOR_MAX_REQUESTS} requests (the project list, competitors, statistics,
one report of one project and the reads it needs), where the service puts every value the reports use.
Prints, for each value, the path where it was found or "not found", then every key of the answers that
nothing reads, with a sample of its value.

Options:
  --project ID         the project whose report is read (default: the first active one)
  --write-config FILE  write the api.fields block that makes every found value explicit (merged into FILE
                       when it exists; the rest of the file is kept)
  --save DIR           save the raw answers (tokens removed) into DIR, for a support ticket
${API_OPTIONS_HELP}

Exit codes: 0 the project list and a report with a GEO score were read; 1 they were not; 75 quota used up.
`;

export const doctorCommand: Command = {
  name: 'doctor',
  usage: 'doctor [--project ID] [--write-config FILE] [--save DIR]',
  summary: 'where this API puts every value the reports use',
  async run(argv, ctx) {
    const args = parseCommandArgs(argv, { options: OPTIONS, help: HELP, command: 'doctor' }, ctx.stdout);
    if (args === null) return 0;
    const { values } = args;
    const projectId = optionalPositiveInt(values['project'], '--project');
    const writeConfig = pathFlag(values['write-config'], '--write-config', ctx);
    const saveDir = pathFlag(values['save'], '--save', ctx);
    const diagnosis = await withClient(values, ctx, (client, config) =>
      diagnose({ client, fields: config.api.fields, ...(projectId === undefined ? {} : { projectId }) }),
    );

    if (saveDir !== null) await saveAnswers(saveDir, diagnosis, ctx);
    if (writeConfig !== null) await writeFieldMap(writeConfig, diagnosis);
    if (values['json'] === true) {
      const { answers: _answers, ...rest } = diagnosis;
      ctx.stdout.write(`${JSON.stringify({ ...rest, fields: fieldMapOf(diagnosis) }, null, 2)}\n`);
    } else {
      ctx.stdout.write(`${describe(diagnosis)}\n`);
      if (writeConfig !== null) ctx.stdout.write(`\nWrote api.fields (${Object.keys(fieldMapOf(diagnosis)).length} values) to ${writeConfig}\n`);
      if (saveDir !== null) ctx.stdout.write(`Saved the raw answers (tokens removed) to ${saveDir}\n`);
    }
    return diagnosis.essentialsRead ? 0 : 1;
  },
};

function pathFlag(value: string | boolean | string[] | undefined, flag: string, ctx: CommandContext): string | null {
  if (value === undefined) return null;
  if (typeof value !== 'string' || value.trim() === '') throw new UsageError(`${flag} needs a path.`);
  return isAbsolute(value) ? value : resolve(ctx.cwd, value);
}

function describe(d: Diagnosis): string {
  const head = d.project === null
    ? 'No project to read a report of.'
    : `Project ${d.project.id}${d.project.name === null ? '' : ` (${d.project.name})`}: report ${d.reportId ?? '(no id)'}, status ${d.reportStatus ?? '(none)'}; ${d.requests} request(s).`;
  const found = d.findings.filter((f) => f.path !== null).length;
  const parts = [
    head,
    '',
    `Values the reports use: ${found} of ${d.findings.length} found`,
    table(['Value', 'From', 'Where'], d.findings.map((f) => [f.label, f.source, f.path ?? 'not found'])),
  ];
  if (d.unread.length > 0) {
    parts.push('', `Keys nothing reads (${d.unread.length}): shown in "other data" on the report when they sit in it`);
    parts.push(table(['Answer', 'Path', 'Sample'], d.unread.map((u) => [u.answer, u.path, u.sample])));
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
  const tokens = (ctx.env['AGENCY_API_TOKEN'] ?? '').split(',').map((t) => t.trim()).filter((t) => t.length >= 4);
  for (const [name, data] of Object.entries(diagnosis.answers)) {
    let text = `${JSON.stringify(data, null, 2)}\n`;
    for (const token of tokens) text = text.replaceAll(token, '[token removed]');
    await writeFile(join(dir, `${name}.json`), text, { mode: 0o600 });
  }
}
