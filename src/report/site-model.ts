// The pages of the published site (`geo-reports publish`): each client's page, listing its months, and the site's
// root (also its 404 page). Declared as zod schemas like the report's model, so the template reference
// (docs/templates.md) and `template check` know what site/client.hbs and site/root.hbs get.
import { z } from 'zod';
import { LanguageCodeSchema } from '../i18n/locales.js';
import { AnnotationViewSchema, BrandingSchema, DeltaSchema, HistoryPointSchema } from './model.js';

const LanguageSchema = LanguageCodeSchema.describe("Language the page is written in: the client's, as its latest report.");

const PageScoreSchema = z
  .object({
    value: z.number().nullable().describe('0–100, or null when the report had none.'),
    change: DeltaSchema.nullable().describe('Change since the month before; null on a first report.'),
  })
  .describe('A score of the latest month, with its change.');

export const SiteMonthSchema = z.object({
  period: z.string().describe('YYYY-MM'),
  periodLabel: z.string().describe('Localised, e.g. "October 2026" / "octobre 2026".'),
  htmlHref: z.string().describe('The report to read online, relative to the client\'s page ("2026-10/report.html").'),
  pdfHref: z.string().describe('The PDF, relative to the client\'s page ("2026-10/report.pdf").'),
  geo: z.number().nullable().describe('The GEO score of that month.'),
  seo: z.number().nullable().describe('The SEO score of that month.'),
  latest: z.boolean().describe('True for the newest month (the first of the list).'),
});
export type SiteMonth = z.infer<typeof SiteMonthSchema>;

export const SiteReviewSchema = z.object({
  period: z.string().describe('YYYY-QN for a quarter, YYYY for a year'),
  periodLabel: z.string().describe('Localised, e.g. "third quarter 2026" / "troisième trimestre 2026", or "2026".'),
  htmlHref: z.string().describe('The review to read online, relative to the client\'s page ("2026-Q3/report.html").'),
  pdfHref: z.string().describe('The PDF, relative to the client\'s page ("2026-Q3/report.pdf").'),
  geo: z.number().nullable().describe("The GEO score of the period (its last month's)."),
  seo: z.number().nullable().describe("The SEO score of the period (its last month's)."),
});
export type SiteReview = z.infer<typeof SiteReviewSchema>;

/** One client's page (`c/<token>/index.html`): its reports, newest first. It never names another client. */
export const ClientPageModelSchema = z.object({
  language: LanguageSchema,
  title: z.string().describe("The page's <title>: the client and the agency."),
  updatedAt: z.string().describe('ISO 8601 time of the newest report on the page; write it with {{date updatedAt "long"}}.'),
  branding: BrandingSchema,
  client: z.object({ name: z.string().describe('The display name its latest report was made with.') }).describe('The client whose page it is.'),
  latest: z
    .object({
      period: z.string().describe('YYYY-MM'),
      periodLabel: z.string(),
      geo: PageScoreSchema,
      seo: PageScoreSchema,
    })
    .describe("The newest month's scores, each with its change."),
  history: z.array(HistoryPointSchema).describe('Every month of the page, oldest first (one point each): {{historyChart history}} draws it.'),
  annotations: z.array(AnnotationViewSchema).describe("The agency's work on the timeline within the page's months, oldest first; {{historyChart}} marks each."),
  months: z.array(SiteMonthSchema).describe('Every month of the page, newest first, with its links.'),
  reviews: z.array(SiteReviewSchema).describe('The quarterly and yearly reviews of the page, listed apart from the months, newest first; empty when none.'),
});
export type ClientPageModel = z.infer<typeof ClientPageModelSchema>;

/** The site's root (`index.html`) and its 404 page: the agency alone, no client named or linked. */
export const RootPageModelSchema = z.object({
  language: LanguageSchema.describe('Language of the page: report.language in the config.'),
  title: z.string().describe("The page's <title>."),
  branding: BrandingSchema,
  notFound: z.boolean().describe('True when the page is 404.html, served for an address that leads nowhere.'),
});
export type RootPageModel = z.infer<typeof RootPageModelSchema>;
