// Every value the product reads from content the spec leaves "not shown", with the names a server could give it.
// This is the one list of synonyms: readers use it, `api.fields` (the field map) is keyed by it, doctor reports on it.
// Names are normalised (lower case, letters and digits only): `geo_score`, `geoScore`, `GEO-Score` → `geoscore`.

export interface FieldSpec {
  /** What it is, for people (doctor's table, docs). */
  label: string;
  /** Which answer it is read from; item fields are read inside each item of their list. */
  source: 'report' | 'report item' | 'competitors' | 'competitors item' | 'stats' | 'stats item';
  /** Key names tried, most likely first (normalised). */
  names: readonly string[];
  /** Doctor's "essential": without it the batch cannot make a report worth sending. */
  essential?: boolean;
}

const GEO = [
  'geoscore',
  'geo',
  'aivisibilityscore',
  'visibilityscore',
  'geovisibility',
  'geovisibilityscore',
  'aiscore',
  'aivisibilityindex',
  'visibilityindex',
  'generativeengineoptimization',
  'visibility',
];
const SEO = ['seoscore', 'seo', 'seorating', 'seoauditscore', 'searchscore', 'organicscore', 'seovisibility'];

export const FIELDS = {
  'report.sections': {
    label: 'the object holding the report sections',
    source: 'report',
    names: ['sections', 'content', 'contents', 'data', 'body', 'payload', 'result', 'results', 'reportdata', 'details'],
  },
  'report.status': { label: 'report status', source: 'report', names: ['status', 'state', 'reportstatus', 'generationstatus', 'progress'] },
  'section.scores': { label: 'scores section', source: 'report', names: ['scores', 'score', 'scoring', 'visibilityscores', 'overview', 'summary'] },
  'section.history': {
    label: 'history section',
    source: 'report',
    names: ['history', 'scorehistory', 'evolution', 'timeline', 'trend', 'trends', 'series', 'historical', 'months'],
  },
  'section.metrics': { label: 'metrics section', source: 'report', names: ['metrics', 'metric', 'kpis', 'kpi', 'measures', 'measurements', 'indicators'] },
  'section.trust': { label: 'trust section', source: 'report', names: ['trust', 'trustanalysis', 'reputation', 'trustsignals', 'trustscore'] },
  'section.recommendations': {
    label: 'recommendations section',
    source: 'report',
    names: ['recommendations', 'recommendation', 'actionitems', 'actions', 'recommendedactions', 'tasks', 'todo', 'advice'],
  },

  'scores.geo': { label: 'GEO score', source: 'report', names: GEO, essential: true },
  'scores.seo': { label: 'SEO score', source: 'report', names: SEO },
  'scores.aiVisibility': {
    label: 'AI visibility per assistant',
    source: 'report',
    names: [
      'aivisibility',
      'assistants',
      'perassistant',
      'byassistant',
      'visibilitybyassistant',
      'aiassistants',
      'engines',
      'aiengines',
      'byengine',
      'llms',
      'models',
      'bymodel',
      'aiplatforms',
      'platforms',
      'breakdown',
      'visibilitybreakdown',
      'ai',
    ],
  },
  'scores.measuredAt': {
    label: 'date the scores were measured',
    source: 'report',
    names: [
      'measuredat',
      'date',
      'scannedat',
      'scandate',
      'lastscanat',
      'lastscan',
      'asof',
      'computedat',
      'calculatedat',
      'updatedat',
      'createdat',
      'timestamp',
      'at',
      'period',
      'month',
    ],
  },
  'aiVisibility.assistant': {
    label: 'AI visibility: assistant name',
    source: 'report item',
    names: ['assistant', 'name', 'engine', 'model', 'platform', 'ai', 'llm', 'provider', 'key', 'id', 'label', 'source'],
  },
  'aiVisibility.value': {
    label: 'AI visibility: value',
    source: 'report item',
    names: ['visibility', 'value', 'score', 'rate', 'percentage', 'percent', 'share', 'visibilityscore', 'mentionrate'],
  },

  'history.period': {
    label: 'history point: month or date',
    source: 'report item',
    names: ['period', 'month', 'date', 'day', 'at', 'on', 'measuredat', 'scannedat', 'createdat', 'timestamp', 'label', 'time'],
  },
  'history.geo': { label: 'history point: GEO score', source: 'report item', names: GEO },
  'history.seo': { label: 'history point: SEO score', source: 'report item', names: SEO },

  'metric.name': { label: 'metric: name', source: 'report item', names: ['name', 'metric', 'key', 'id', 'label', 'title', 'code', 'slug', 'type'] },
  'metric.value': { label: 'metric: value', source: 'report item', names: ['value', 'amount', 'count', 'score', 'number', 'current', 'val', 'total'] },
  'metric.unit': { label: 'metric: unit', source: 'report item', names: ['unit', 'units', 'uom', 'suffix'] },

  'trust.score': {
    label: 'trust score',
    source: 'report',
    names: ['trustscore', 'trustrating', 'trustindex', 'score', 'trust', 'overall', 'overallscore', 'value', 'index'],
  },
  'trust.platforms': {
    label: 'review platforms',
    source: 'report',
    names: ['reviewplatforms', 'platforms', 'reviews', 'reviewsites', 'reviewsources', 'sources', 'profiles', 'reviewprofiles', 'ratings'],
  },
  'platform.name': {
    label: 'review platform: name',
    source: 'report item',
    names: ['name', 'platform', 'site', 'source', 'provider', 'title', 'label', 'service', 'key', 'id'],
  },
  'platform.rating': {
    label: 'review platform: rating',
    source: 'report item',
    names: ['rating', 'averagerating', 'avgrating', 'stars', 'averagestars', 'ratingvalue', 'score', 'average', 'note'],
  },
  'platform.count': {
    label: 'review platform: number of reviews',
    source: 'report item',
    names: [
      'reviewscount',
      'reviewcount',
      'countreviews',
      'numberofreviews',
      'nbreviews',
      'totalreviews',
      'reviews',
      'count',
      'ratingscount',
      'ratingcount',
      'total',
      'votes',
    ],
  },
  'platform.link': { label: 'review platform: link', source: 'report item', names: ['url', 'link', 'href', 'profileurl', 'pageurl', 'page', 'website', 'uri'] },

  'recommendation.id': {
    label: 'recommendation: id',
    source: 'report item',
    names: ['id', 'recommendationid', 'uid', 'uuid', 'key', 'code', 'ref', 'reference'],
  },
  'recommendation.title': {
    label: 'recommendation: title',
    source: 'report item',
    names: ['title', 'name', 'label', 'headline', 'summary', 'action', 'recommendation', 'text'],
  },
  'recommendation.description': {
    label: 'recommendation: description',
    source: 'report item',
    names: ['description', 'details', 'detail', 'body', 'explanation', 'rationale', 'why', 'content', 'text', 'message', 'summary'],
  },
  'recommendation.priority': { label: 'recommendation: priority', source: 'report item', names: ['priority', 'severity', 'urgency', 'importance', 'level'] },
  'recommendation.category': {
    label: 'recommendation: category',
    source: 'report item',
    names: ['category', 'type', 'kind', 'area', 'topic', 'group', 'domain'],
  },
  'recommendation.impact': {
    label: 'recommendation: impact',
    source: 'report item',
    names: ['impact', 'expectedimpact', 'estimatedimpact', 'effect', 'gain', 'potential'],
  },
  'recommendation.status': { label: 'recommendation: status', source: 'report item', names: ['status', 'state', 'progress', 'resolution'] },

  benchmark: {
    label: 'benchmark',
    source: 'competitors',
    names: ['benchmark', 'globalbenchmark', 'benchmarks', 'global', 'market', 'industry', 'reference', 'averages', 'average'],
  },
  'benchmark.geoAverage': {
    label: 'benchmark average (GEO)',
    source: 'competitors',
    names: ['average', 'avg', 'mean', 'averagescore', 'meanscore', 'value'],
    essential: false,
  },
  'benchmark.seoAverage': { label: 'benchmark average (SEO)', source: 'competitors', names: ['average', 'avg', 'mean', 'averagescore', 'meanscore', 'value'] },
  'benchmark.sampleSize': {
    label: 'benchmark sample size',
    source: 'competitors',
    names: ['samplesize', 'sample', 'samplecount', 'sites', 'sitescount', 'trackedsites', 'population', 'n', 'count', 'size', 'total'],
  },
  'competitors.rows': {
    label: 'per-project comparison rows',
    source: 'competitors',
    names: ['projects', 'rows', 'comparisons', 'comparison', 'yourprojects', 'results', 'items', 'list', 'entries', 'ranking', 'rankings'],
  },
  'competitor.projectId': { label: 'comparison row: project id', source: 'competitors item', names: ['projectid', 'project', 'id'] },
  'competitor.geo': { label: 'comparison row: GEO score', source: 'competitors item', names: GEO },
  'competitor.seo': { label: 'comparison row: SEO score', source: 'competitors item', names: SEO },
  'competitor.percentile': {
    label: 'percentile',
    source: 'competitors item',
    names: ['percentile', 'percentilerank', 'rankpercentile', 'pctrank', 'percentilegeo', 'geopercentile', 'position', 'rank'],
  },
  'competitor.vsBenchmark': {
    label: 'deltas against the benchmark',
    source: 'competitors item',
    names: [
      'vsbenchmark',
      'versusbenchmark',
      'vsaverage',
      'comparedtobenchmark',
      'benchmarkdelta',
      'benchmarkdeltas',
      'deltas',
      'delta',
      'difference',
      'differences',
      'diff',
      'gap',
      'gaps',
    ],
  },

  'stats.projects': {
    label: 'statistics: number of projects',
    source: 'stats',
    names: ['projectscount', 'projectcount', 'totalprojects', 'nbprojects', 'numberofprojects', 'countprojects', 'projects'],
  },
  'stats.scans': {
    label: 'statistics: number of scans',
    source: 'stats',
    names: ['scanscount', 'scancount', 'totalscans', 'nbscans', 'numberofscans', 'countscans', 'scans'],
  },
  'stats.averageScore': {
    label: 'statistics: average score',
    source: 'stats',
    names: [
      'averagescore',
      'avgscore',
      'meanscore',
      'averagegeoscore',
      'avggeoscore',
      'averagegeo',
      'avggeo',
      'meangeo',
      'geoaverage',
      'geoavg',
      'geomean',
      'average',
      'avg',
      'mean',
      ...GEO,
    ],
  },
  'stats.topProjects': {
    label: 'statistics: top projects',
    source: 'stats',
    names: ['topprojects', 'top', 'bestprojects', 'leaders', 'topperformers', 'leaderboard', 'ranking'],
  },
  'topProject.id': { label: 'top project: id', source: 'stats item', names: ['projectid', 'project', 'id'] },
  'topProject.name': { label: 'top project: name', source: 'stats item', names: ['name', 'projectname', 'title', 'label', 'domain'] },
  'topProject.geo': { label: 'top project: GEO score', source: 'stats item', names: [...GEO, 'score', 'value'] },
  'stats.evolution': {
    label: 'statistics: evolution',
    source: 'stats',
    names: ['evolution', 'history', 'trend', 'trends', 'monthly', 'timeline', 'series', 'months'],
  },
  'evolution.period': { label: 'evolution: month', source: 'stats item', names: ['month', 'period', 'date', 'at', 'label', 'timestamp'] },
  'evolution.value': {
    label: 'evolution: average score',
    source: 'stats item',
    names: [
      'averagescore',
      'avgscore',
      'meanscore',
      'average',
      'avg',
      'mean',
      'averagegeoscore',
      'avggeoscore',
      'averagegeo',
      'avggeo',
      'meangeo',
      'geoaverage',
      'geoavg',
      'value',
      'score',
      ...GEO,
    ],
  },
} as const satisfies Record<string, FieldSpec>;

export type FieldName = keyof typeof FIELDS;
export const FIELD_NAMES = Object.keys(FIELDS) as FieldName[];

/**
 * `api.fields` of the config: for a value, the path(s) where this account's API puts it, tried before the
 * names above. Report, competitors and stats paths start at the answer's `data`; item paths start at the item.
 */
export type FieldMap = Partial<Record<FieldName, readonly string[]>>;

/** The spec's priority and category values, matched without regard to case or separators (`High`, `AI visibility`). */
export const PRIORITY_WORDS: Record<string, 'critical' | 'high' | 'medium' | 'low'> = {
  critical: 'critical',
  high: 'high',
  medium: 'medium',
  low: 'low',
};
export const CATEGORY_WORDS: Record<string, 'seo' | 'content' | 'technical' | 'ai_visibility'> = {
  seo: 'seo',
  content: 'content',
  technical: 'technical',
  aivisibility: 'ai_visibility',
};
