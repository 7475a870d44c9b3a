// Reads competitors.php (every project against the global benchmark, or one with `project_id`) and stats.php.
// The spec names what they contain (scores, benchmark, percentile, vs_benchmark, other projects; counts, average,
// top projects, evolution) but not one field name: every value is looked for by its synonyms.
import { FIELDS, type FieldMap, type FieldName } from './fields.js';
import {
  COUNT_KEYS,
  isRecord,
  joinPath,
  keysContaining,
  keysNamed,
  listEntries,
  namedValuesAsRecord,
  normaliseKey,
  numberIn,
  parseDay,
  parseId,
  parseNumber,
  parseText,
  type JsonRecord,
  type ListEntry,
} from '../spec/find.js';
import { MAP_KEY, Reading, type Located } from './reading.js';
import type { StatsContent } from './stats.js';
import { monthOfDate } from '../period.js';

export type { StatsContent };

export interface BenchmarkFigures {
  average: number | null;
  /** Other figures of the benchmark for that score (median, p75…), as sent. */
  figures: Array<{ name: string; value: number }>;
}

export interface RankingRow {
  projectId: number;
  name: string | null;
  geo: number | null;
  seo: number | null;
  /** 0–100 */
  percentile: number | null;
  vsBenchmark: { geo: number | null; seo: number | null };
}

export interface CompetitorsContent {
  benchmark: { geo: BenchmarkFigures | null; seo: BenchmarkFigures | null; sampleSize: number | null };
  rows: RankingRow[];
}

const GEO_WORDS = ['geo', 'visibility'];
const SEO_WORDS = ['seo'];
const AVERAGE_WORDS = ['average', 'avg', 'mean'];
const DELTA_WORDS = ['vs', 'delta', 'diff', 'gap', 'versus'];

// ------------------------------------------------------------------ competitors

export function readCompetitors(data: unknown, fields: FieldMap = {}, reading: Reading = new Reading(fields)): CompetitorsContent {
  const root = isRecord(data) ? data : {};
  const benchmarkAt = reading.locate('benchmark', data, '', reading.named('benchmark', root, ''), (value, path) =>
    isRecord(value) || parseNumber(value) !== null ? { value, path } : null,
  );
  if (benchmarkAt !== null) reading.consumed.delete(benchmarkAt.path);
  // Without a benchmark object, its figures may sit beside the rows (`average_geo_score` at the top).
  const benchmark = benchmarkAt ?? { value: root, path: '' };
  const geo = readBenchmarkFigures(reading, data, benchmark, 'benchmark.geoAverage', GEO_WORDS, FIELDS['scores.geo'].names, true);
  const seo = readBenchmarkFigures(reading, data, benchmark, 'benchmark.seoAverage', SEO_WORDS, FIELDS['scores.seo'].names, false);
  const sampleSize = reading.locate('benchmark.sampleSize', data, '', reading.named('benchmark.sampleSize', benchmark.value, benchmark.path), (value, path) => {
    const number = parseNumber(value);
    return number === null || number < 0 ? null : { value: number, path };
  });
  if (benchmarkAt !== null) reading.take(benchmarkAt.path);
  if (geo?.average == null) reading.note('Benchmark average (GEO) not found in the competitors answer.');

  const rows: RankingRow[] = [];
  const listAt = reading.locate('competitors.rows', data, '', reading.named('competitors.rows', root, ''), (value, path) => {
    const entries = listEntries(value, path, { maps: true });
    return entries === null || entries.length === 0 || !entries.some((e) => isRecord(e.value)) ? null : { value: entries, path };
  });
  if (listAt !== null) {
    reading.consumed.delete(listAt.path);
    for (const entry of listAt.value) {
      if (entry.key !== null && COUNT_KEYS.includes(normaliseKey(entry.key))) continue;
      const row = readRankingRow(reading, entry);
      if (row === null) reading.note(`Comparison row at ${entry.path} names no project: left out.`);
      else rows.push(row);
    }
  }
  // With `project_id`, the answer may itself be that project's row.
  if (rows.length === 0) {
    const own = readRankingRow(reading, { key: null, value: root, path: '' });
    if (own !== null) rows.push(own);
  }
  return {
    benchmark: { geo, seo, sampleSize: sampleSize?.value ?? null },
    rows,
  };
}

function readBenchmarkFigures(
  reading: Reading,
  data: unknown,
  benchmark: Located<unknown>,
  field: FieldName,
  words: readonly string[],
  scoreNames: readonly string[],
  isMain: boolean,
): BenchmarkFigures | null {
  const candidates: Array<{ value: unknown; path: string }> = [];
  let figuresOf: { record: JsonRecord; path: string } | null = null;
  if (isRecord(benchmark.value)) {
    const record = benchmark.value;
    // `geo_score: { average: 52, median: 50 }` or `geo: 52`
    for (const key of keysNamed(record, scoreNames)) {
      const inner = isRecord(record[key]) ? record[key] : (namedValuesAsRecord(record[key]) ?? record[key]);
      const path = joinPath(benchmark.path, key);
      if (isRecord(inner)) {
        figuresOf ??= { record: inner, path };
        candidates.push(...reading.named(field, inner, path));
      } else {
        candidates.push({ value: inner, path });
      }
    }
    // `average_geo_score: 52`
    for (const key of keysContaining(record, [words, AVERAGE_WORDS])) candidates.push({ value: record[key], path: joinPath(benchmark.path, key) });
    // A benchmark of one score only (`{ average: 52, median: 50 }`) is the GEO benchmark.
    if (isMain) {
      candidates.push(...reading.named(field, record, benchmark.path));
      figuresOf ??= { record, path: benchmark.path };
    }
  } else if (isMain) {
    candidates.push(benchmark);
  }
  const average = reading.locate(field, data, '', candidates, numberIn);
  if (average === null && figuresOf === null) return null;
  const figures: BenchmarkFigures['figures'] = [];
  if (figuresOf !== null) {
    for (const [name, value] of Object.entries(figuresOf.record)) {
      const path = joinPath(figuresOf.path, name);
      const number = parseNumber(value);
      if (number === null || path === average?.path || keysNamed({ [name]: 0 }, FIELDS['benchmark.sampleSize'].names).length > 0) continue;
      // Figures of another score (`seo_average` inside a shared record) are not this score's.
      if (!isMain || !SEO_WORDS.some((w) => normaliseKey(name).includes(w))) figures.push({ name, value: number });
      reading.take(path);
    }
  }
  return { average: average?.value ?? null, figures };
}

function readRankingRow(reading: Reading, entry: ListEntry): RankingRow | null {
  if (!isRecord(entry.value)) return null;
  const row = entry.value;
  const at = entry.path;
  const keyId = entry.key === null ? null : parseId(entry.key);
  const projectId = readProjectRef(reading, 'competitor.projectId', row, at) ?? keyId;
  if (projectId === null) return null;
  if (keyId !== null && projectId === keyId) reading.placed('competitor.projectId', MAP_KEY);
  const levels: Array<{ record: JsonRecord; path: string }> = [{ record: row, path: at }];
  for (const key of keysNamed(row, ['scores', 'score', 'values', 'current'])) {
    // `scores: { geo_score }`, or the same as a list `[{ name: 'geo_score', value }]`.
    const inner = isRecord(row[key]) ? row[key] : namedValuesAsRecord(row[key]);
    if (inner !== null) levels.push({ record: inner, path: joinPath(at, key) });
  }
  const candidates = (field: FieldName) => levels.flatMap((level) => reading.named(field, level.record, level.path));
  const geo = reading.locate(
    'competitor.geo',
    row,
    at,
    [...candidates('competitor.geo'), ...levels.slice(1).map((l) => ({ value: l.record, path: l.path }))],
    numberIn,
  );
  const seo = reading.locate('competitor.seo', row, at, candidates('competitor.seo'), numberIn);
  const percentile = reading.locate('competitor.percentile', row, at, reading.namedDeep('competitor.percentile', row, at), (value, path) => {
    const direct = numberIn(value, path);
    if (direct !== null) return direct;
    // `percentile: { geo: 72, seo: 60 }`: the GEO one.
    const record = isRecord(value) ? value : namedValuesAsRecord(value);
    if (record === null) return null;
    for (const key of keysNamed(record, FIELDS['scores.geo'].names)) {
      const inner = numberIn(record[key], joinPath(path, key));
      if (inner !== null) return inner;
    }
    return null;
  });
  const vs = readVsBenchmark(reading, row, at);
  return {
    projectId,
    name: projectName(reading, row, at),
    geo: geo?.value ?? null,
    seo: seo?.value ?? null,
    percentile: percentile === null ? null : Math.min(100, Math.max(0, percentile.value)),
    vsBenchmark: vs,
  };
}

function readVsBenchmark(reading: Reading, row: JsonRecord, at: string): RankingRow['vsBenchmark'] {
  const found = reading.locate('competitor.vsBenchmark', row, at, reading.namedDeep('competitor.vsBenchmark', row, at), (value, path) => {
    const bare = numberIn(value, path);
    if (bare !== null) return { value: { geo: bare.value, seo: null as number | null }, path };
    const record = isRecord(value) ? value : namedValuesAsRecord(value);
    if (record === null) return null;
    const pick = (names: readonly string[]): number | null => {
      for (const key of keysNamed(record, names)) {
        const inner = numberIn(record[key], joinPath(path, key));
        if (inner !== null) return inner.value;
      }
      return null;
    };
    const geo = pick(FIELDS['scores.geo'].names);
    const seo = pick(FIELDS['scores.seo'].names);
    return geo === null && seo === null ? null : { value: { geo, seo }, path };
  });
  if (found !== null) return found.value;
  // `geo_vs_benchmark: 5.2`, `delta_seo: -3`
  const flat = (words: readonly string[]): number | null => {
    for (const key of keysContaining(row, [DELTA_WORDS, words])) {
      const number = numberIn(row[key], joinPath(at, key));
      if (number !== null) {
        reading.foundAt('competitor.vsBenchmark', number.path);
        return number.value;
      }
    }
    return null;
  };
  return { geo: flat(GEO_WORDS), seo: flat(SEO_WORDS) };
}

/** A project id given as `project_id`, `project: 12`, `project: { id: 12 }` or `id`. */
function readProjectRef(reading: Reading, field: FieldName, record: JsonRecord, at: string): number | null {
  const found = reading.locate(field, record, at, reading.named(field, record, at), (value, path) => {
    const direct = parseId(value);
    if (direct !== null) return { value: direct, path };
    if (isRecord(value)) {
      const id = parseId(value['id']);
      if (id !== null) return { value: id, path: joinPath(path, 'id') };
    }
    return null;
  });
  return found?.value ?? null;
}

/** A project's name beside its figures (`name`, `project: { name }`), marked read. */
function projectName(reading: Reading, record: JsonRecord, at: string): string | null {
  for (const key of keysNamed(record, ['name', 'projectname', 'title', 'label', 'domain'])) {
    const text = parseText(record[key]);
    if (text !== null && typeof record[key] === 'string') {
      reading.take(joinPath(at, key));
      return text;
    }
  }
  for (const key of keysNamed(record, ['project'])) {
    const project = record[key];
    if (isRecord(project) && typeof project['name'] === 'string') {
      reading.take(joinPath(joinPath(at, key), 'name'));
      return parseText(project['name']);
    }
  }
  return null;
}

// ------------------------------------------------------------------ stats

export function readStats(data: unknown, fields: FieldMap = {}, reading: Reading = new Reading(fields)): StatsContent {
  const root = isRecord(data) ? data : {};
  const count = (field: FieldName): number | null =>
    reading.locate(field, data, '', reading.namedDeep(field, root, ''), (value, path) => {
      const direct = numberIn(value, path);
      if (direct !== null) return direct;
      // `projects: { total: 25, active: 20 }`
      if (isRecord(value)) {
        for (const key of keysNamed(value, ['total', 'count', 'all'])) {
          const inner = numberIn(value[key], joinPath(path, key));
          if (inner !== null) return inner;
        }
      }
      return null;
    })?.value ?? null;
  const projects = count('stats.projects');
  const scans = count('stats.scans');
  const averageScore = reading.locate('stats.averageScore', data, '', reading.namedDeep('stats.averageScore', root, ''), numberIn);

  const topAt = reading.locate('stats.topProjects', data, '', reading.named('stats.topProjects', root, ''), (value, path) => {
    const entries = listEntries(value, path, { maps: true });
    return entries === null ? null : { value: entries, path };
  });
  const topProjects: StatsContent['topProjects'] = [];
  for (const entry of topAt?.value ?? []) {
    if (entry.key !== null && COUNT_KEYS.includes(normaliseKey(entry.key))) continue;
    if (!isRecord(entry.value)) {
      const geo = numberIn(entry.value, entry.path);
      if (geo !== null && entry.key !== null)
        topProjects.push({ projectId: parseId(entry.key), name: parseId(entry.key) === null ? entry.key : null, geo: geo.value });
      else reading.note(`Top project at ${entry.path} is not a record: left out.`);
      continue;
    }
    const record = entry.value;
    const id = readProjectRef(reading, 'topProject.id', record, entry.path) ?? (entry.key === null ? null : parseId(entry.key));
    const name = reading.locate('topProject.name', record, entry.path, reading.namedDeep('topProject.name', record, entry.path), (value, path) =>
      typeof value === 'string' && value.trim() !== '' ? { value: value.trim(), path } : null,
    );
    const geo = reading.locate('topProject.geo', record, entry.path, reading.namedDeep('topProject.geo', record, entry.path), numberIn);
    if (id === null && name === null) {
      reading.note(`Top project at ${entry.path} names no project: left out.`);
      continue;
    }
    topProjects.push({ projectId: id, name: name?.value ?? projectName(reading, record, entry.path), geo: geo?.value ?? null });
  }

  const evolutionAt = reading.locate('stats.evolution', data, '', reading.named('stats.evolution', root, ''), (value, path) => {
    const entries = listEntries(value, path, { maps: true });
    return entries === null ? null : { value: entries, path };
  });
  const evolution: StatsContent['evolution'] = [];
  for (const entry of evolutionAt?.value ?? []) {
    if (entry.key !== null && COUNT_KEYS.includes(normaliseKey(entry.key))) continue;
    const keyDay = entry.key === null ? null : parseDay(entry.key);
    if (keyDay !== null) reading.placed('evolution.period', MAP_KEY);
    if (keyDay !== null && !isRecord(entry.value)) {
      evolution.push({ month: monthOfDate(keyDay), value: numberIn(entry.value, entry.path)?.value ?? null });
      reading.take(entry.path);
      continue;
    }
    if (!isRecord(entry.value)) {
      reading.note(`Evolution point at ${entry.path} has no month: left out.`);
      continue;
    }
    const record = entry.value;
    const month =
      keyDay ??
      reading.locate('evolution.period', record, entry.path, reading.named('evolution.period', record, entry.path), (value, path) => {
        const day = parseDay(value);
        return day === null ? null : { value: day, path };
      })?.value ??
      null;
    if (month === null) {
      reading.note(`Evolution point at ${entry.path} has no month: left out.`);
      continue;
    }
    const value = reading.locate('evolution.value', record, entry.path, reading.namedDeep('evolution.value', record, entry.path), numberIn);
    evolution.push({ month: monthOfDate(month), value: value?.value ?? null });
  }
  evolution.sort((a, b) => (a.month < b.month ? -1 : a.month > b.month ? 1 : 0));
  return { projects, scans, averageScore: averageScore?.value ?? null, topProjects, evolution };
}
