// `geo-reports scans`: the scans of a project, or the data of one scan by id or audit id.
import { readScanRow } from '../content/lists.js';
import type { ScanList, ScanReadOptions } from '../api/client.js';
import { SCAN_SECTIONS, type KeywordRanking, type Scan, type ScanSection } from '../api/schemas.js';
import { API_OPTIONS, API_OPTIONS_HELP, parseCommandArgs, positiveInt, UsageError } from './args.js';
import { commaList, formatNumber, formatText, formatTime, givenFlags, refuseFlags, withClient } from './api-command.js';
import { printResult, table, type Command } from './context.js';

const OPTIONS = {
  ...API_OPTIONS,
  project: { type: 'string' },
  id: { type: 'string' },
  audit: { type: 'string' },
  include: { type: 'string' },
  exclude: { type: 'string' },
  'seo-steps': { type: 'string' },
} as const;

const SELECTORS = ['project', 'id', 'audit'] as const;
const READ_FLAGS = ['include', 'exclude', 'seo-steps'] as const;

const HELP = `Usage: geo-reports scans --project N
       geo-reports scans --id N    [--include a,b|all] [--exclude a,b] [--seo-steps s1,s2]
       geo-reports scans --audit N [--include a,b|all] [--exclude a,b] [--seo-steps s1,s2]

Lists the scans of a project, or prints one scan: the sections it holds and its keyword rankings.
Give exactly one of --project, --id, --audit. --json prints the whole scan.

Options:
  --project N          scans of project N, newest first
  --id N               one scan by its id
  --audit N            the scan tied to audit N
  --include LIST       sections to fetch, or all (metadata and html come only on request):
                       ${SCAN_SECTIONS.join(', ')}
  --exclude LIST       sections to leave out
  --seo-steps LIST     SEO audit steps to fetch, e.g. step3_serp,step6_report (needs --include seo_audit or all)
${API_OPTIONS_HELP}
`;

/** Section selection flags → client options; every mistake is a UsageError before any request. */
export function scanReadOptions(values: Record<string, string | boolean | string[] | undefined>): ScanReadOptions {
  const include = commaList(values['include'], [...SCAN_SECTIONS, 'all'] as const, '--include');
  const exclude = commaList(values['exclude'], SCAN_SECTIONS, '--exclude');
  const options: ScanReadOptions = {};
  if (include !== undefined) options.include = include;
  if (exclude !== undefined) options.exclude = exclude;
  const steps = values['seo-steps'];
  if (steps !== undefined) {
    const names = typeof steps === 'string' ? steps.split(',').map((s) => s.trim()).filter((s) => s !== '') : [];
    const bad = names.find((name) => !/^[A-Za-z0-9_-]+$/.test(name));
    if (names.length === 0 || bad !== undefined) {
      throw new UsageError(`--seo-steps needs step names like step3_serp,step6_report${bad === undefined ? '' : ` (got "${bad}")`}.`);
    }
    if (!include?.some((section) => section === 'seo_audit' || section === 'all')) {
      throw new UsageError('--seo-steps needs --include seo_audit (or --include all): the steps are parts of the SEO audit.');
    }
    options.seoSteps = names;
  }
  return options;
}

function scanListTable(list: ScanList): string {
  return table(
    ['Scan', 'Audit', 'Status', 'Trigger', 'Created', 'GEO', 'SEO'],
    list.scans.map((s) => {
      const row = readScanRow(s);
      return [s.id, s.audit_id, row.status, formatText(s['trigger']), formatTime(row.createdAt), formatNumber(row.geo), formatNumber(row.seo)];
    }),
  );
}

/** What a section holds, in one line: its keys, or its length when it is a list or a text. */
function sectionContents(value: unknown): string {
  if (Array.isArray(value)) return `${value.length} item(s)`;
  if (typeof value === 'string') return `${value.length} characters`;
  if (value !== null && typeof value === 'object') return Object.keys(value).join(', ');
  return formatText(value) ?? '–';
}

function rankingsTable(rankings: KeywordRanking[]): string {
  const trials = (values: Array<number | null>): string => values.map((v) => (v === null ? '–' : String(v))).join(' ');
  return table(
    ['Keyword', 'Position', 'Observed', 'Counted as'],
    rankings.map((k) => [k.keyword, formatNumber(k.position), trials(k.values), trials(k.counted_as)]),
  );
}

export function scanSummary(scan: Scan): string {
  const head = table(
    ['Scan', 'Project', 'Audit', 'Status', 'Created'],
    [[scan.id, scan.project_id, scan.audit_id, readScanRow(scan).status, formatTime(readScanRow(scan).createdAt)]],
  );
  const record = scan as Record<string, unknown>;
  const present = SCAN_SECTIONS.filter((section: ScanSection) => record[section] !== undefined);
  const sections = table(['Section', 'Contents'], present.map((section) => [section, sectionContents(record[section])]));
  const parts = [head, '', sections];
  const rankings = scan.seo_audit?.keyword_rankings;
  if (rankings !== undefined) {
    parts.push('', 'Keyword rankings (an absent trial counts as position 11)', rankingsTable(rankings));
  }
  return parts.join('\n');
}

export const scansCommand: Command = {
  name: 'scans',
  usage: 'scans (--project N | --id N | --audit N) …',
  summary: 'scans of a project, or one scan with its sections',
  async run(argv, ctx) {
    const args = parseCommandArgs(argv, { options: OPTIONS, help: HELP, command: 'scans' }, ctx.stdout);
    if (args === null) return 0;
    const { values } = args;
    const json = values['json'] === true;
    const selectors = givenFlags(values, SELECTORS);
    if (selectors.length !== 1) {
      throw new UsageError(
        `scans: give exactly one of --project N, --id N or --audit N${selectors.length > 1 ? ` (got ${selectors.map((s) => `--${s}`).join(' and ')})` : ''}.`,
        { hint: 'Run `geo-reports scans --help`.' },
      );
    }
    const selector = selectors[0];

    if (selector === 'project') {
      const projectId = positiveInt(values['project'], '--project');
      refuseFlags(values, READ_FLAGS, 'with --project (they select sections of one scan: use --id or --audit)');
      const list = await withClient(values, ctx, (client) => client.listScans(projectId));
      printResult(ctx, json, list, () => `${scanListTable(list)}\n${list.scans.length} scan(s)`);
      return 0;
    }

    const target = selector === 'id' ? { id: positiveInt(values['id'], '--id') } : { auditId: positiveInt(values['audit'], '--audit') };
    const options = scanReadOptions(values);
    const scan = await withClient(values, ctx, (client) => client.getScan(target, options));
    printResult(ctx, json, scan, () => scanSummary(scan));
    return 0;
  },
};
