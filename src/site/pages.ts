// The models of the site's pages, from what the links record keeps of each month: pure, no I/O. The page speaks as
// the client's newest report (its language and display name) and lists every month it holds, newest first.
import { phrase } from '../i18n/format.js';
import type { Locales } from '../i18n/locales.js';
import type { SiteMonth } from '../output/links.js';
import { periodNameIn, periodWording } from '../report/period-wording.js';
import { changeDirection } from '../report/deltas.js';
import type { Branding, Delta, Language } from '../report/model.js';
import { annotationViews, type Annotation } from '../report/annotations.js';
import type { ClientPageModel, RootPageModel } from '../report/site-model.js';
import { lastMonth, type MonthPeriod, type Period, type ReviewPeriod } from '../period.js';

/** The month (or review) folder of a client's page, and its two files there. */
export const monthFile = (period: Period, file: 'html' | 'pdf'): string => `${period}/report.${file}`;

function delta(value: number | null, change: number | null): Delta | null {
  if (value === null || change === null) return null;
  return { value: change, direction: changeDirection(change), previous: value - change };
}

/** A client's page: `months` by period (at least one), in the language and name of the newest. */
export function clientPageModel(input: {
  months: ReadonlyMap<MonthPeriod, SiteMonth>;
  /** The client's quarterly and yearly reviews, listed apart from the months. @default none */
  reviews?: ReadonlyMap<ReviewPeriod, SiteMonth>;
  branding: Branding;
  locales: Locales;
  /** The client's annotations (clients."<id>".annotations, annotations/<id>.csv). @default none */
  annotations?: readonly Annotation[];
}): ClientPageModel {
  const periods = [...input.months.keys()].sort().reverse();
  const newestPeriod = periods[0];
  const newest = newestPeriod === undefined ? undefined : input.months.get(newestPeriod);
  if (newestPeriod === undefined || newest === undefined) throw new Error('A client page needs at least one month.');
  const language = newest.language;
  const phrases = input.locales.phrases(language);
  const months = periods.map((period, index) => {
    const month = input.months.get(period) as SiteMonth;
    return {
      period,
      periodLabel: periodWording(period, language, phrases, month.madeBeforeEnd === true),
      htmlHref: monthFile(period, 'html'),
      pdfHref: monthFile(period, 'pdf'),
      geo: month.geo,
      seo: month.seo,
      latest: index === 0,
    };
  });
  // Newest first by the month each ends with; a year before the fourth quarter it ends with.
  const order = (period: ReviewPeriod): string => `${lastMonth(period)}${period.includes('Q') ? 0 : 1}`;
  const reviewed = [...(input.reviews ?? new Map<ReviewPeriod, SiteMonth>()).entries()].sort(([a], [b]) => order(b).localeCompare(order(a)));
  const reviews = reviewed.map(([period, review]) => ({
    period,
    periodLabel: periodNameIn(period, language, phrases),
    htmlHref: monthFile(period, 'html'),
    pdfHref: monthFile(period, 'pdf'),
    geo: review.geo,
    seo: review.seo,
  }));
  // The page changes only when its content does: its date is the newest report's, never the time of the publish.
  const updatedAt =
    [...periods.map((period) => (input.months.get(period) as SiteMonth).madeAt), ...reviewed.map(([, review]) => review.madeAt)].sort().at(-1) ?? newest.madeAt;
  const history = [...periods].reverse().map((period) => {
    const month = input.months.get(period) as SiteMonth;
    return { date: `${period}-01`, geo: month.geo, seo: month.seo };
  });
  return {
    language,
    title: phrase(phrases, 'site.title', { client: newest.name, agency: input.branding.agencyName }),
    updatedAt,
    branding: input.branding,
    client: { name: newest.name },
    latest: {
      period: newestPeriod,
      periodLabel: periodWording(newestPeriod, language, phrases, newest.madeBeforeEnd === true),
      geo: { value: newest.geo, change: delta(newest.geo, newest.geoChange) },
      seo: { value: newest.seo, change: delta(newest.seo, newest.seoChange) },
    },
    history,
    annotations: annotationViews(input.annotations ?? [], newestPeriod, history),
    months,
    reviews,
  };
}

/** The site's root page, or its 404 page: the agency alone, in the config's language. */
export function rootPageModel(input: { language: Language; branding: Branding; locales: Locales; notFound: boolean }): RootPageModel {
  const phrases = input.locales.phrases(input.language);
  return {
    language: input.language,
    title: input.notFound ? phrase(phrases, 'site.notFound.title') : phrase(phrases, 'site.root.title', { agency: input.branding.agencyName }),
    branding: input.branding,
    notFound: input.notFound,
  };
}
