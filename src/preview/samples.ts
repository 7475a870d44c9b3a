// Sample pages to render a template set against before it makes a real report: the fullest report of the
// simulator's sample account and the same report with every section left out, in every language, and an agency
// index with a client in every state. A template that throws on one of them is found before the API is asked.
import { previewEmailHtml } from './email.js';
import type { Config } from '../config/schema.js';
import { LANGUAGES } from '../i18n/locales.js';
import { ProjectEntry } from '../output/store.js';
import { addMonths, periodBefore, previousPeriod, quarterOfMonth, yearOf, yearPeriod, type MonthPeriod, type ReviewPeriod } from '../period.js';
import { buildIndexModel } from '../output/period-index.js';
import type { Branding, IndexModel, Language, ReportModel } from '../report/model.js';
import { createHtmlRenderer, TemplateCompiler, type EmbeddedFonts, type HtmlRenderer } from '../render/html.js';
import { balanceProblems, SourceMarks } from '../render/template-check/balance.js';
import type { PreparedTemplates, TemplateProblem, TemplateSet } from '../render/template-check/load.js';
import type { SiteMonth } from '../output/links.js';
import { SECTIONS } from '../sections/index.js';
import { clientPageModel, rootPageModel } from '../site/pages.js';
import type { ClientPageModel, RootPageModel } from '../report/site-model.js';
import { configInLanguage, sampleData } from './data.js';
import { MODEL_STEPS, runSteps } from './render.js';

export interface SampleSetting {
  renderer: HtmlRenderer;
  config: Config;
  branding: Branding;
  clock: () => Date;
  /** @default the month before the clock's */
  period?: MonthPeriod;
}

/** The config with every client written in `language` (and, with `bare`, every section of `projectId` off, scan sections included). */
function configFor(config: Config, language: Language, projectId: number, bare: boolean): Config {
  const inLanguage = configInLanguage(config, language);
  if (!bare) return inLanguage;
  // The scan sections too: they are on by default, and the bare sample is the report with none of its sections.
  const scanOff = Object.fromEntries(SECTIONS.map((section) => [section.name, false]));
  const off = { scores: false, recommendations: false, history: false, metrics: false, trust: false, ...scanOff };
  return { ...inLanguage, clients: { ...inLanguage.clients, [String(projectId)]: { ...inLanguage.clients[String(projectId)], language, sections: off } } };
}

/** How much of the report a model fills: the sample to check is the one that fills the most. */
function fullness(model: ReportModel): number {
  const lists = [
    model.summary,
    model.scores?.aiVisibility,
    model.history,
    model.metrics,
    model.trust?.platforms,
    model.trust?.extra,
    model.recommendations?.tracking?.new,
    model.recommendations?.tracking?.resolved,
    model.recommendations?.tracking?.persistent,
    model.otherSections,
  ];
  return lists.filter((list) => list !== undefined && list !== null && list.length > 0).length;
}

/** The sample report models: the fullest project, then the same with every section off, in every language. */
export async function sampleReportModels(setting: SampleSetting): Promise<ReportModel[]> {
  const period = setting.period ?? previousPeriod(setting.clock());
  const data = sampleData(period, setting.clock);
  const base = { period, periodDir: '', renderer: setting.renderer, branding: setting.branding, clock: setting.clock };
  const printer = (): never => {
    throw new Error('Sample models are not printed.');
  };
  const modelOf = async (projectId: number, config: Config): Promise<ReportModel> => {
    const work = await runSteps(await data.load(projectId, config), { ...base, config, printer }, MODEL_STEPS);
    if (work.model === undefined) throw new Error('The assemble step made no model.');
    return work.model;
  };
  let best: { id: number; score: number } | null = null;
  for (const project of data.projects.slice(0, 12)) {
    const score = fullness(await modelOf(project.id, setting.config));
    if (best === null || score > best.score) best = { id: project.id, score };
  }
  if (best === null) return [];
  const models: ReportModel[] = [];
  for (const language of LANGUAGES) {
    for (const bare of [false, true]) {
      const model = await modelOf(best.id, configFor(setting.config, language, best.id, bare));
      // The fullest sample shows every scan section (src/sections) with its own sample, so its partial is tried too.
      models.push(
        bare
          ? model
          : {
              ...model,
              sections: Object.fromEntries(SECTIONS.map((section) => [section.name, section.sample(language, setting.renderer.locales.phrases(language))])),
            },
      );
    }
  }
  return models;
}

/** An agency index with a client in each state (done, held, failed, pending, skipped; sent, failed, unknown email). */
export function sampleIndexModels(setting: SampleSetting, reports: readonly ReportModel[]): IndexModel[] {
  const now = setting.clock().toISOString();
  const period = setting.period ?? previousPeriod(setting.clock());
  const entry = (id: number, fields: Record<string, unknown>): ProjectEntry =>
    ProjectEntry.parse({
      id,
      name: `Client ${id}`,
      slug: `${id}-client`,
      status: 'done',
      files: { html: null, pdf: null, data: null },
      updatedAt: now,
      ...fields,
    });
  const files = (id: number) => ({ html: `${id}-client/report.html`, pdf: `${id}-client/report.pdf`, data: `${id}-client/data.json` });
  const email = (status: string, extra: Record<string, unknown> = {}) => ({ status, messageId: 'report@agency.example', at: now, ...extra });
  const entries = [
    entry(1, { files: files(1), geo: 71, geoChange: 4, percentile: 82, openCritical: 1, email: email('sent') }),
    entry(2, {
      files: files(2),
      geo: 48,
      geoChange: -12,
      percentile: 35,
      held: ['The GEO score dropped by 12 points.'],
      email: email('failed', { error: '550 mailbox unavailable' }),
    }),
    entry(3, { status: 'failed', error: 'The service failed to build report 12.', email: email('unknown', { error: 'connection lost' }) }),
    entry(4, { status: 'pending', error: 'the daily quota of every token is used up', notes: ['Percentile not found.'] }),
    entry(5, { status: 'skipped' }),
  ];
  const account = {
    projects: 5,
    scans: 60,
    averageScore: 58.5,
    topProjects: [{ projectId: 1, name: 'Client 1', geo: 71 }],
    evolution: [
      { month: periodBefore(period), value: 55 },
      { month: period, value: 58.5 },
    ],
  };
  return LANGUAGES.map((language) =>
    buildIndexModel({
      period,
      entries,
      account,
      language,
      branding: reports[0]?.branding ?? setting.branding,
      generatedAt: now,
      phrases: setting.renderer.locales.phrases(language),
    }),
  );
}

/**
 * The site's sample pages, in every language: a client page with a year of months and two reviews, one with a single month
 * (no trend yet, no change), the root and the 404 page.
 */
export function sampleSitePages(setting: SampleSetting): { clients: ClientPageModel[]; roots: RootPageModel[] } {
  const period = setting.period ?? previousPeriod(setting.clock());
  const file = { hash: '0'.repeat(64), size: 0, source: null };
  const month = (language: Language, back: number): [MonthPeriod, SiteMonth] => [
    addMonths(period, -back),
    {
      name: 'Boulangerie Martin',
      language,
      geo: 60 - back,
      seo: 70 - (back % 3),
      geoChange: back === 11 ? null : 1,
      seoChange: back === 11 ? null : -1,
      madeAt: setting.clock().toISOString(),
      html: file,
      pdf: file,
    },
  ];
  const locales = setting.renderer.locales;
  // The year's page lists a quarterly review and a yearly one apart from its months.
  const reviews = (language: Language): Map<ReviewPeriod, SiteMonth> =>
    new Map<ReviewPeriod, SiteMonth>([
      [quarterOfMonth(addMonths(period, -3)), { ...month(language, 3)[1] }],
      [yearPeriod(yearOf(period) - 1), { ...month(language, 11)[1] }],
    ]);
  const clients = LANGUAGES.flatMap((language) => [
    clientPageModel({
      months: new Map(Array.from({ length: 12 }, (_, back) => month(language, back))),
      reviews: reviews(language),
      branding: setting.branding,
      locales,
    }),
    clientPageModel({ months: new Map([month(language, 11)]), branding: setting.branding, locales }),
  ]);
  const roots = LANGUAGES.flatMap((language) => [false, true].map((notFound) => rootPageModel({ language, branding: setting.branding, locales, notFound })));
  return { clients, roots };
}

/**
 * Renders every sample page with the renderer; what throws is an error of the set (its report.hbs or index.hbs,
 * as the page it was rendering), so that a run finds it before the first request.
 */
export async function renderSamples(setting: SampleSetting, set: TemplateSet, prepared?: PreparedTemplates): Promise<TemplateProblem[]> {
  const problems: TemplateProblem[] = [];
  const reports = await sampleReportModels(setting);
  // With the prepared set, each page is rendered again with marks, and its element balance checked (render/template-check/balance.ts).
  const balance = prepared === undefined ? null : await markedRenderer(prepared);
  const agencyFiles = new Set(
    [...set.partials.values(), set.report, set.index, set.email, set.site?.client, set.site?.root].flatMap((file) =>
      file != null && file.fromAgency ? [file.path] : [],
    ),
  );
  const seen = new Set<string>();
  const attempt = (file: string, what: string, render: (renderer: HtmlRenderer) => string): void => {
    try {
      render(setting.renderer);
    } catch (error) {
      problems.push({ severity: 'error', file, message: `rendering ${what} failed: ${(error as Error).message}` });
      return;
    }
    if (balance === null) return;
    for (const problem of balanceProblems(render(balance.renderer), balance.marks, what, agencyFiles)) {
      // The same tag is found in every language's sample: named once.
      const key = `${problem.file}:${problem.line}:${problem.column}`;
      if (seen.has(key)) continue;
      seen.add(key);
      problems.push(problem);
    }
  };
  // A set read for the index alone has no report page to try.
  const reportFile = set.report?.path;
  if (reportFile !== undefined) {
    for (const model of reports) {
      const what = `the sample report (${model.meta.language}${model.scores === null ? ', every section left out' : ''})`;
      attempt(reportFile, what, (renderer) => renderer.renderReport(model));
    }
  }
  // The message that carries each sample report, with a button to a client page when the config sends links.
  for (const model of reports) {
    attempt(set.email.path, `the sample message (${model.meta.language})`, (renderer) => previewEmailHtml(model, setting.config, renderer, setting.branding));
  }
  for (const model of sampleIndexModels(setting, reports)) {
    attempt(set.index.path, `the sample agency index (${model.language})`, (renderer) => renderer.renderIndex(model));
  }
  if (set.site !== null) {
    const site = sampleSitePages(setting);
    for (const model of site.clients) {
      attempt(
        set.site.client.path,
        `the sample client page (${model.language}, ${model.months.length} month${model.months.length === 1 ? '' : 's'})`,
        (renderer) => renderer.renderClientPage(model),
      );
    }
    for (const model of site.roots) {
      attempt(set.site.root.path, `the sample ${model.notFound ? '404' : 'root'} page (${model.language})`, (renderer) => renderer.renderRootPage(model));
    }
  }
  return problems;
}

/** No font in a marked page: its balance does not depend on them, and the parser reads a page without 240 KB of them. */
const NO_FONTS: EmbeddedFonts = { embedded: '', embeddedBytes: new Uint8Array(), linked: '', assets: new Map(), site: '' };

/** A renderer of the set whose pages carry the marks of the files that wrote them. */
async function markedRenderer(prepared: PreparedTemplates): Promise<{ renderer: HtmlRenderer; marks: SourceMarks }> {
  const marks = new SourceMarks();
  const renderer = await createHtmlRenderer({ templates: prepared, fonts: NO_FONTS, compiler: new TemplateCompiler({ marks }) });
  return { renderer, marks };
}
