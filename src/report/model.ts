// ReportModel: everything one client report shows, already merged and computed.
// `report/assemble.ts` builds it from API data; `render/` turns it into HTML and PDF and computes nothing.
// Declared once, as zod schemas: the TypeScript types, the template reference (docs/templates.md) and the check
// of the names an agency template asks for (`geo-reports template check`) all come from these declarations.
import { z } from 'zod';
import { CATEGORIES, PRIORITIES } from '../spec/vocabulary.js';
import { StatsContentSchema } from '../content/stats.js';
import { SECTIONS } from '../sections/index.js';
import { LANGUAGES, LanguageCodeSchema, type Language } from '../i18n/locales.js';
import { FactTableSchema } from './facts.js';

export type { Language };

const LanguageSchema = LanguageCodeSchema.describe(
  `Language the report is written in: ${LANGUAGES.map((l) => `"${l}"`).join(', ')} or one the template folder adds.`,
);

/** Change against the previous period. `direction` is the non-colour cue (arrow + sign). */
export const DeltaSchema = z
  .object({
    value: z.number().describe('current − previous, rounded for display by the helpers.'),
    direction: z.enum(['up', 'down', 'flat']).describe('"up", "down" or "flat": the arrow, so the change never relies on colour alone.'),
    previous: z.number().describe("The previous period's value."),
  })
  .describe('A change against the previous period; write it with {{delta …}} and style it with {{deltaClass …}}.');
export type Delta = z.infer<typeof DeltaSchema>;

export const BrandingSchema = z
  .object({
    agencyName: z.string().describe('The agency name (agency.name in the config).'),
    logoDataUri: z
      .string()
      .exactOptional()
      .describe('The logo as a data: URI, already inlined; absent → the agency name is set as a word mark. Templates use {{logo}}, the checked copy.'),
    colors: z
      .object({
        primary: z.string(),
        accent: z.string(),
        text: z.string(),
        muted: z.string(),
        background: z.string(),
      })
      .describe(
        'Brand colours as configured; the stylesheet gets them, checked, as --brand-primary, --brand-accent, --brand-text, --brand-muted, --brand-background.',
      ),
    fontFamily: z.string().describe('CSS font-family stack (the stylesheet gets it as --brand-font); the Inter face is embedded in the HTML.'),
    footer: z.string().describe("Footer line of every PDF page and mail (agency.footer, in the report's language)."),
    contact: z
      .object({
        email: z.string().exactOptional(),
        phone: z.string().exactOptional(),
        website: z.string().exactOptional(),
      })
      .describe("The agency's contact (agency.contact); each part absent when not configured."),
  })
  .describe('The agency: name, logo, colours, font, footer, contact.');
export type Branding = z.infer<typeof BrandingSchema>;

export const YearAgoSchema = z
  .object({
    period: z.string().describe('YYYY-MM: the same month a year before the period.'),
    periodLabel: z.string().describe('Localised, e.g. "October 2025" / "octobre 2025".'),
    change: DeltaSchema.describe("The period's figure minus that month's (`change.previous`): the figure its report showed, else the history's."),
  })
  .describe(
    'The same month last year, beside a score: write it with {{t "scores.yearAgo" period=card.yearAgo.periodLabel value=(score card.yearAgo.change.previous)}} and {{delta card.yearAgo.change}}.',
  );
export type YearAgo = z.infer<typeof YearAgoSchema>;

export const ScoreCardSchema = z
  .object({
    value: z.number().nullable().describe('0–100, or null when the API gave none.'),
    benchmarkAverage: z.number().nullable().describe('Average of the benchmark (the sites the API compares with).'),
    vsBenchmark: z.number().nullable().describe('value − benchmark average, as the API computed it.'),
    change: DeltaSchema.nullable().describe("Change since last period (the history's month before, else last period's report); null when there is none."),
    asOf: z
      .string()
      .nullable()
      .describe(
        'YYYY-MM-DD: null when the value is the period\'s own; else the date it is shown as of (measured before the period, or the run\'s day when nothing dates it). Write it with {{t "values.asOf" date=(date card.asOf "long")}}.',
      ),
    yearAgo: YearAgoSchema.nullable()
      .exactOptional()
      .describe('The same month a year before, when the history (or the report saved then) reaches back that far; null or absent otherwise.'),
  })
  .describe('One score with its comparisons (the score-card partial).');
export type ScoreCard = z.infer<typeof ScoreCardSchema>;

export interface KeyValue {
  key: string;
  /** Human label (translated when known, otherwise the key made readable). */
  label: string;
  /** Scalars are shown as text; nested objects / arrays as nested key/value lists. */
  value: string | number | boolean | null | KeyValue[];
}

export const KeyValueSchema: z.ZodType<KeyValue> = z
  .object({
    key: z.string().describe('The key as the API sent it.'),
    label: z.string().describe('Human label: translated when known, otherwise the key made readable.'),
    get value() {
      return z
        .union([z.string(), z.number(), z.boolean(), z.null(), z.array(KeyValueSchema)])
        .describe('A text, number, yes/no or nothing (write it with {{scalar value}}), or a nested list of the same entries.');
    },
  })
  .describe('One value the API sent that has no place of its own, shown so that nothing is dropped (the kv-list partial).');

const PrioritySchema = z.enum(PRIORITIES).describe(`The API's priority: ${PRIORITIES.join(', ')}.`);
const CategorySchema = z.enum(CATEGORIES).describe(`The API's category: ${CATEGORIES.join(', ')}.`);

export const TrackedRecommendationSchema = z.object({
  key: z.string().describe('Recommendation id, or a stable key built from category + title when the API gives none.'),
  title: z.string(),
  description: z.string().nullable(),
  priority: PrioritySchema,
  category: CategorySchema.nullable().describe("null when the API gave none of the spec's categories."),
  extra: z.array(KeyValueSchema).describe('Every other field the API sent, shown as key/value so nothing is dropped.'),
  periodsOpen: z.number().describe('Periods in a row this recommendation has been open, this one included (1 = new).'),
  titleLang: z
    .string()
    .nullable()
    .optional()
    .describe(
      "The language of `title` as shown, for lang=\"…\" on its element: the report's when the agency's translations file gave it, the service's when it is the service's own words in another language; null when nothing needs saying.",
    ),
  descriptionLang: z.string().nullable().optional().describe('The language of `description` as shown, as `titleLang` for the title.'),
});
export type TrackedRecommendation = z.infer<typeof TrackedRecommendationSchema>;

export const RecommendationGroupSchema = z.object({
  priority: PrioritySchema,
  items: z.array(TrackedRecommendationSchema).describe('The open recommendations of that priority.'),
});
export type RecommendationGroup = z.infer<typeof RecommendationGroupSchema>;

export const MetricRowSchema = z.object({
  key: z.string().describe('The metric as the API named it.'),
  label: z.string().describe('Translated when known, otherwise the key made readable.'),
  value: z.union([z.number(), z.string()]).nullable(),
  unit: z.string().nullable().describe('"%", "s", "ms"… when the API gave one.'),
  change: DeltaSchema.nullable(),
});
export type MetricRow = z.infer<typeof MetricRowSchema>;

export const ReviewPlatformSchema = z.object({
  name: z.string(),
  rating: z.number().nullable(),
  reviews: z.number().nullable(),
  url: z.string().nullable().describe("The client's page on the platform, shown as text (never fetched, never a live link in the PDF)."),
});
export type ReviewPlatform = z.infer<typeof ReviewPlatformSchema>;

export const HistoryPointSchema = z.object({
  date: z.string().describe('ISO date (YYYY-MM-DD); write it with {{date date "month"}}.'),
  geo: z.number().nullable(),
  seo: z.number().nullable(),
});
export type HistoryPoint = z.infer<typeof HistoryPointSchema>;

export const AnnotationViewSchema = z.object({
  marker: z.string().describe('Its mark on the history chart: "1", "2"… in date order.'),
  date: z.string().describe('YYYY-MM-DD; write it with {{date date "long"}}.'),
  text: z.string().describe('What the agency did, as written in the config or the annotations file.'),
  kind: z
    .string()
    .nullable()
    .describe("The kind given, in the report's language when the locale files name it (annotations.kind.technical…), else as written; or null."),
});
export type AnnotationView = z.infer<typeof AnnotationViewSchema>;

const TrackingSchema = z
  .object({
    new: z.array(TrackedRecommendationSchema).describe('Open this period and not the last.'),
    resolved: z
      .array(TrackedRecommendationSchema.pick({ key: true, title: true, priority: true, category: true, titleLang: true }))
      .describe('Open last period, gone now.'),
    persistent: z.array(TrackedRecommendationSchema).describe('Open for two periods or more, longest first.'),
  })
  .describe('Month-over-month tracking; null on the first period (nothing to compare with).');

/** Goals' statuses, in the order they are decided (see report/goals.ts). */
export const GOAL_STATUSES = ['no_data', 'achieved', 'missed', 'no_trend', 'on_track', 'behind'] as const;
export type GoalStatus = (typeof GOAL_STATUSES)[number];
export const GOAL_DIRECTIONS = ['up', 'down'] as const;
export type GoalDirection = (typeof GOAL_DIRECTIONS)[number];

export const GoalViewSchema = z.object({
  metric: z.string().describe('As configured: geo, seo, trust, ai:<assistant>, metric:<key>, keyword:<keyword>, cwv:lcp, cwv:inp or cwv:cls.'),
  metricName: z.string().describe('The metric\'s name in the report\'s language ("GEO score", "Visibility on ChatGPT").'),
  label: z.string().describe("The configured label, or the metric's name and the target."),
  direction: z.enum(GOAL_DIRECTIONS).describe('up: higher is better; down: lower is better.'),
  target: z.number(),
  by: z.string().describe('YYYY-MM: the month the target is due.'),
  byLabel: z.string().describe('Localised, e.g. "March 2027".'),
  value: z.number().nullable().describe("This month's value; null when the report has none (status no_data)."),
  asOf: z
    .string()
    .nullable()
    .describe(
      "YYYY-MM-DD: null when `value` is the period's own; else the date it is shown as of, like the report's value it is (ScoreCard.asOf, meta.currentAsOf).",
    ),
  start: z.number().nullable().describe('The earliest known value, where the progress bar starts.'),
  unit: z.string().nullable().describe('The unit of the metric\'s values ("%" for a percentage, whose changes are in points); null for scores.'),
  status: z.enum(GOAL_STATUSES).describe('no_data, achieved, missed, no_trend, on_track or behind; decided in that order.'),
  statusLabel: z.string().describe("The status in words, in the report's language."),
  progress: z
    .number()
    .nullable()
    .describe("0–100: how near this month's value is to the target (value ÷ target; target ÷ value for a down goal); width it with {{barWidth progress}}."),
  paceNeeded: z.number().nullable().describe('Change per month still needed to meet the target by `by`; null when achieved, missed or due this month.'),
  recentPace: z.number().nullable().describe('Change per month of the least-squares line through the latest values; null without a trend (no_trend, no_data).'),
  projected: z.number().nullable().describe("The trend line's value in the month `by`; null without a trend."),
  monthsLeft: z.number().describe('Months left until `by`: 0 in that month, negative once it has passed.'),
  known: z.number().describe('How many monthly values are known (this month and earlier).'),
  justAchieved: z.boolean().describe('Achieved this month and not last month.'),
});
export type GoalView = z.infer<typeof GoalViewSchema>;

const ReviewScoreSchema = z.object({
  kind: z.enum(['geo', 'seo']),
  label: z.string().describe('"GEO score" / "SEO score", in the report\'s language.'),
  value: z.number().nullable().describe("The period's figure: its last month's, as that month's report showed it."),
  sincePrevious: DeltaSchema.nullable().describe("Against the previous period's last month; null when no saved report shows it."),
  sinceYearBefore: DeltaSchema.nullable().describe('Against the same period a year before (its last month); null when the saved months do not reach back.'),
});

export const ReviewViewSchema = z
  .object({
    kind: z.enum(['quarter', 'year']),
    period: z.string().describe('2026-Q3 or 2026.'),
    name: z.string().describe('The period in the report\'s language: "third quarter 2026", "troisième trimestre 2026", "2026".'),
    kicker: z.string().describe('"Quarterly review" / "Yearly review", in the report\'s language.'),
    previousName: z.string().describe('The previous period, short ("Q2 2026", "2025").'),
    yearBeforeName: z.string().describe('The same period a year before, short ("Q3 2025").'),
    intro: z.string().describe('How the figures were made, in a sentence.'),
    scores: z.array(ReviewScoreSchema).describe('The GEO and SEO figures of the period with their two changes.'),
    resolved: z
      .array(z.object({ key: z.string(), title: z.string(), priority: z.string() }))
      .describe('Recommendations open at the end of the previous period and gone at the end of this one.'),
    opened: z
      .array(z.object({ key: z.string(), title: z.string(), priority: z.string() }))
      .describe('Recommendations open at the end of the period that were not at the end of the previous one.'),
  })
  .describe('A review of a quarter or a year, from the months already saved.');
export type ReviewView = z.infer<typeof ReviewViewSchema>;

export const ReportModelSchema = z.object({
  meta: z
    .object({
      projectId: z.number(),
      reportId: z.number().nullable(),
      period: z.string().describe('YYYY-MM'),
      periodLabel: z.string().describe('Localised, e.g. "October 2026" / "octobre 2026".'),
      generatedAt: z.string().describe('ISO 8601 timestamp of rendering; write it with {{date meta.generatedAt "long"}}.'),
      currentAsOf: z
        .string()
        .nullable()
        .describe(
          "YYYY-MM-DD the values without a history (AI visibility, metrics, trust) are shown as of: null when the service's date places them in the period; else its earlier date, or the run's day (the service answers as of then).",
        ),
      language: LanguageSchema,
      sourceLang: z
        .string()
        .nullable()
        .optional()
        .describe(
          "The language of the service's own words (AI questions and answers) when it is not the report's: put it in lang=\"…\" on their elements, so that hyphenation and screen readers follow; null when it is the report's. A recommendation's title and description carry their own (titleLang, descriptionLang): the agency's translations file may have put them in the report's language.",
        ),
      title: z.string().describe('Document title, used for <title> and the PDF metadata.'),
    })
    .describe('About the report itself: project, period, date, language, title.'),
  branding: BrandingSchema,
  client: z
    .object({
      name: z.string().describe('The display name (clients."<id>".displayName), else the project name.'),
      domain: z.string().nullable().describe("The client's site, as the API names it."),
      note: z
        .string()
        .nullable()
        .describe('The account manager\'s note: the one of this period in clients."<id>".annotations ({ "period", "note" }), else clients."<id>".note.'),
    })
    .describe('The client the report is for.'),
  summary: z.array(z.string()).describe('Rule-built summary paragraphs, already localised. Empty when there is nothing to say.'),
  goals: z
    .array(GoalViewSchema)
    .nullable()
    .describe('The client\'s goals and their status (clients."<id>".goals, else report.goals); null when none is set: no section.'),
  scores: z
    .object({
      geo: ScoreCardSchema.describe("The GEO score: how visible and recommended the site is in AI assistants' answers."),
      seo: ScoreCardSchema.describe('The SEO score: the technical and content health of the site for search engines.'),
      percentile: z
        .number()
        .nullable()
        .describe('0–100: share of tracked sites this client scores above; null when unknown. Write it with {{percentileWords scores.percentile}}.'),
      benchmarkSampleSize: z.number().nullable().describe('How many tracked sites the benchmark is made of.'),
      aiVisibility: z
        .array(
          z.object({
            assistant: z.string().describe('The assistant as the API named it (chatgpt, perplexity…).'),
            label: z.string(),
            value: z.number().nullable(),
            change: DeltaSchema.nullable(),
          }),
        )
        .describe('Visibility per AI assistant (0–100), each with its change.'),
      visibilityAsOf: z
        .string()
        .nullable()
        .optional()
        .describe(
          "YYYY-MM-DD the AI visibility is shown \"as of\" when it is not the period's own (the service's undated values, read on the run's day); null when it is the month's (the period's scan, or dated in the period).",
        ),
    })
    .nullable()
    .describe('null when the report left out the scores section.'),
  history: z.array(HistoryPointSchema).nullable().describe('null when the report left out the history section.'),
  annotations: z
    .array(AnnotationViewSchema)
    .describe(
      'The agency\'s work on the timeline (clients."<id>".annotations, annotations/<id>.csv) from the first month of the history to the end of the period, oldest first; {{historyChart}} marks each.',
    ),
  metrics: z.array(MetricRowSchema).nullable().describe('null when the report left out the metrics section.'),
  trust: z
    .object({
      score: z.number().nullable().describe('The trust score, 0–100.'),
      change: DeltaSchema.nullable(),
      platforms: z.array(ReviewPlatformSchema).describe('Review platforms: rating and number of reviews.'),
      extra: z.array(KeyValueSchema).describe('Other trust keys the API sent.'),
    })
    .nullable()
    .describe('null when the report left out the trust section.'),
  recommendations: z
    .object({
      total: z.number().describe('Open recommendations, every priority.'),
      groups: z.array(RecommendationGroupSchema).describe('One group per priority, critical first.'),
      tracking: TrackingSchema.nullable(),
    })
    .nullable()
    .describe('null when the report left out the recommendations section.'),
  sections: z
    .object(Object.fromEntries(SECTIONS.map((section) => [section.name, section.schema.nullable().optional()])))
    .optional()
    .describe(
      "The sections made from the period's scan (src/sections), by name; each null or absent when switched off or when the scan lacks its input. The built-in report shows each with its partial section-<name>.",
    ),
  otherSections: z
    .array(z.object({ key: z.string(), label: z.string(), entries: z.array(KeyValueSchema) }))
    .describe('Sections or keys the tool does not know, shown generically so nothing is dropped.'),
  glossary: z
    .array(z.object({ term: z.string().describe('"GEO", "Share of voice"…, as the report writes it.'), meaning: z.string() }))
    .describe('"What these words mean": GEO and SEO, and each other term the report uses (its labels, summary, recommendations), explained.'),
  facts: FactTableSchema.describe(
    'Every figure the report shows, defined once (key, raw value, unit, month, source, figure, shown form): the views write these figures; saved with data.json.',
  ),
  held: z.array(z.string()).describe("Pre-send check and the report's own consistency check: reasons this report is held (empty when it may be sent)."),
  review: ReviewViewSchema.nullable()
    .optional()
    .describe('A quarterly or yearly review (`run --period 2026-Q3`, `2026`) made from the saved months; absent in a monthly report.'),
});
export type ReportModel = z.infer<typeof ReportModelSchema>;

/** Where the client's email stands: never sent, sent (when), failed (why), or unknown (may have arrived). */
export const IndexEmailSchema = z.object({
  status: z.enum(['not_sent', 'sent', 'failed', 'unknown']),
  at: z.string().nullable().describe('ISO 8601 time of the last change; null when never sent.'),
  reason: z.string().nullable().describe('Why it failed, or why the outcome is unknown.'),
});
export type IndexEmail = z.infer<typeof IndexEmailSchema>;

export const IndexRowSchema = z.object({
  projectId: z.number(),
  name: z.string(),
  status: z.enum(['done', 'failed', 'pending', 'skipped']),
  held: z.array(z.string()).describe('Pre-send check reasons; non-empty means the report is held.'),
  geo: z.number().nullable(),
  change: DeltaSchema.nullable(),
  percentile: z.number().nullable(),
  openCritical: z.number(),
  htmlHref: z.string().nullable().describe('Link relative to the period folder; write it with {{safeHref htmlHref}}.'),
  pdfHref: z.string().nullable().describe('Link relative to the period folder; write it with {{safeHref pdfHref}}.'),
  error: z.string().nullable(),
  notes: z.array(z.string()).describe("Data-quality notes: values not found or left out (for the agency, never in the client's report)."),
  sectionsLeftOut: z
    .array(z.object({ section: z.string().describe("The scan section's name (keywords, pageExperience, aiAnswers)."), reason: z.string() }))
    .describe('The scan sections on for the client that its report was made without, and why (a done report only).'),
  goalsOff: z.array(z.object({ label: z.string(), status: z.enum(['behind', 'missed']) })).describe("The client's goals that are behind or missed, by label."),
  email: IndexEmailSchema,
});
export type IndexRow = z.infer<typeof IndexRowSchema>;

/** The agency overview of one period (`<out>/<period>/index.html`): for the agency, not for clients. */
export const IndexModelSchema = z.object({
  period: z.string().describe('YYYY-MM'),
  periodLabel: z.string(),
  generatedAt: z.string(),
  language: LanguageSchema,
  branding: BrandingSchema,
  account: StatsContentSchema.nullable().describe("The account's statistics (projects, scans, average score, top projects, evolution); null when not read."),
  showGoals: z.boolean().describe('Some client has goals: the overview shows which are behind or missed.'),
  rows: z.array(IndexRowSchema).describe('One row per project of the period, in the order of the manifest (orders[] has them sorted).'),
  totals: z
    .object({ done: z.number(), failed: z.number(), pending: z.number(), skipped: z.number(), held: z.number() })
    .describe('How many projects are in each state.'),
});
export type IndexModel = z.infer<typeof IndexModelSchema>;
