// `geo-reports scans`: the scans of a project, or the data of one scan by id or audit id.
import type { readScanRow } from '../content/lists.js';
import type { ScanList, ScanReadOptions } from '../api/client.js';
import type { KeywordRanking, Scan } from '../api/schemas.js';
import { SCAN_SECTIONS, type ScanSection } from '../spec/vocabulary.js';
import { EXIT } from '../exit-codes.js';
import {
  defineCommand,
  formatNumber,
  formatText,
  formatTime,
  listOf,
  oneSelector,
  positiveInteger,
  printResult,
  refuseFlags,
  table,
  UsageError,
  type ValueParser,
} from './define.js';
import { API_OPTIONS, withClient } from './shared.js';

const READ_FLAGS = ['include', 'exclude', 'seo-steps'] as const;

/** `step3_serp,step6_report` → the step names. */
const stepNames: ValueParser<string[]> = (text, name) => {
  const names = text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  const bad = names.find((step) => !/^[A-Za-z0-9_-]+$/.test(step));
  if (names.length === 0 || bad !== undefined) {
    throw new UsageError(`${name} needs step names like step3_serp,step6_report${bad === undefined ? '' : ` (got "${bad}")`}.`);
  }
  return names;
};

/** Section selection flags → client options; every mistake is a UsageError before any request. */
export function scanReadOptions(flags: {
  include?: Array<ScanSection | 'all'> | undefined;
  exclude?: ScanSection[] | undefined;
  'seo-steps'?: string[] | undefined;
}): ScanReadOptions {
  const options: ScanReadOptions = {};
  if (flags.include !== undefined) options.include = flags.include;
  if (flags.exclude !== undefined) options.exclude = flags.exclude;
  const steps = flags['seo-steps'];
  if (steps !== undefined) {
    if (!flags.include?.some((section) => section === 'seo_audit' || section === 'all')) {
      throw new UsageError('--seo-steps needs --include seo_audit (or --include all): the steps are parts of the SEO audit.');
    }
    options.seoSteps = steps;
  }
  return options;
}

function scanListTable(list: ScanList, readRow: typeof readScanRow): string {
  return table(
    ['Scan', 'Audit', 'Status', 'Trigger', 'Created', 'GEO', 'SEO'],
    list.scans.map((s) => {
      const row = readRow(s);
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

export function scanSummary(scan: Scan, readRow: typeof readScanRow): string {
  const head = table(
    ['Scan', 'Project', 'Audit', 'Status', 'Created'],
    [[scan.id, scan.project_id, scan.audit_id, readRow(scan).status, formatTime(readRow(scan).createdAt)]],
  );
  const record = scan as Record<string, unknown>;
  const present = SCAN_SECTIONS.filter((section: ScanSection) => record[section] !== undefined);
  const sections = table(
    ['Section', 'Contents'],
    present.map((section) => [section, sectionContents(record[section])]),
  );
  const parts = [head, '', sections];
  const rankings = scan.seo_audit?.keyword_rankings;
  if (rankings !== undefined) {
    parts.push('', 'Keyword rankings (an absent trial counts as position 11)', rankingsTable(rankings));
  }
  return parts.join('\n');
}

export default defineCommand(
  {
    name: 'scans',
    usage: [
      '--project N',
      '--id N    [--include a,b|all] [--exclude a,b] [--seo-steps s1,s2]',
      '--audit N [--include a,b|all] [--exclude a,b] [--seo-steps s1,s2]',
    ],
    description:
      'Lists the scans of a project, or prints one scan: the sections it holds and its keyword rankings.\n' +
      'Give exactly one of --project, --id, --audit. --json prints the whole scan.',
    options: {
      project: { type: 'string', value: 'N', parse: positiveInteger, help: 'scans of project N, newest first' },
      id: { type: 'string', value: 'N', parse: positiveInteger, help: 'one scan by its id' },
      audit: { type: 'string', value: 'N', parse: positiveInteger, help: 'the scan tied to audit N' },
      include: {
        type: 'string',
        value: 'LIST',
        parse: listOf([...SCAN_SECTIONS, 'all'] as const),
        help: `sections to fetch, or all (metadata and html come only on request):\n${SCAN_SECTIONS.join(', ')}`,
      },
      exclude: { type: 'string', value: 'LIST', parse: listOf(SCAN_SECTIONS), help: 'sections to leave out' },
      'seo-steps': {
        type: 'string',
        value: 'LIST',
        parse: stepNames,
        help: 'SEO audit steps to fetch, e.g. step3_serp,step6_report (needs --include seo_audit or all)',
      },
      ...API_OPTIONS,
    },
  },
  async ({ options, given }, ctx) => {
    const { json } = options;
    const selector = oneSelector('scans', options, ['project', 'id', 'audit']);
    // The reader is loaded when the command runs: its --help loads the declaration alone.
    const { readScanRow } = await import('../content/lists.js');

    if (selector.name === 'project') {
      const projectId = selector.value;
      refuseFlags(given, READ_FLAGS, 'with --project (they select sections of one scan: use --id or --audit)');
      const list = await withClient(options, ctx, (client) => client.listScans(projectId));
      printResult(ctx, json, list, () => `${scanListTable(list, readScanRow)}\n${list.scans.length} scan(s)`);
      return EXIT.ok;
    }

    const target = selector.name === 'id' ? { id: selector.value } : { auditId: selector.value };
    const readOptions = scanReadOptions(options);
    const scan = await withClient(options, ctx, (client) => client.getScan(target, readOptions));
    printResult(ctx, json, scan, () => scanSummary(scan, readScanRow));
    return EXIT.ok;
  },
);
