// Step: the report answer, the shared comparison data and last period's data → the ReportModel.
import { buildGlossary } from '../../report/glossary.js';
import { datedAnnotations, monthlyNote } from '../../config/annotations.js';
import { footerIn } from '../../config/branding.js';
import { reportLanguage } from '../../i18n/report-language.js';
import { loadTranslations } from '../../config/translations.js';
import type { Language } from '../../report/model.js';
import { assembleReport, clientName } from '../../report/assemble.js';
import { goalLabel, goalLookback, goalUnit, parseGoalMetric, scanGoalSource, type EarlierReport } from '../../report/goals.js';
import { previousContent } from '../../report/period-data.js';
import { readScanSections, withScanSectionsRead } from '../../report/scan-sections.js';
import { readScanVisibility } from '../../report/scan-visibility.js';
import { isReportSection } from '../../spec/vocabulary.js';
import { need, type ProjectStep, type RenderContext } from '../pipeline.js';
import { scanSectionsOn, sectionSwitches } from '../sections.js';
import { rankingOf } from '../shared.js';
import type { JsonRecord } from '../../spec/find.js';
import { yearBefore } from '../../period.js';

export const assemble: ProjectStep<RenderContext> = {
  name: 'assemble',
  lane: 'print',
  async run(work, ctx) {
    const { config, period } = ctx;
    const { project } = work;
    const report = need(work, 'report', 'assemble');
    const override = config.clients[String(project.id)];
    const language: Language = reportLanguage({
      pinned: override?.language,
      service: project.language,
      followService: config.report.followProjectLanguage,
      fallback: config.report.language,
    });
    const ranking = rankingOf(ctx.shared, project.id);
    const previousData = await ctx.earlier.last(project.id);
    const previous = previousData === null ? null : previousContent(previousData, config.api.fields);
    // The same month last year as its report showed it (what was told stays told), when that month was made.
    const yearAgoData = await ctx.earlier.data(project.id, yearBefore(period), 'the same month last year is read from the history');
    const goals = override?.goals ?? config.report.goals;
    const sectionsOn = scanSectionsOn(config, project.id);
    // A goal on scan data reads a section's part of the scan only when that section is on for the client.
    const on = {
      keywords: sectionsOn.some((s) => s.name === 'keywords'),
      pageExperience: sectionsOn.some((s) => s.name === 'pageExperience'),
      aiAnswers: sectionsOn.some((s) => s.name === 'aiAnswers'),
    };
    const phrases = ctx.renderer.locales.phrases(language);
    const displayName = override?.displayName;
    // The site as the AI answers section tells it from its competitors: a share of voice goal reads the same figure.
    const site = {
      name: clientName({ project, client: displayName === undefined ? {} : { displayName } }, phrases),
      domain: project.domain ?? null,
      ownDomains: override?.ownDomains,
      competitors: override?.competitors,
    };
    const earlierScan = (data: { scan?: { data: JsonRecord } | undefined } | null) => scanGoalSource(data?.scan?.data ?? null, on, site);
    const earlier: EarlierReport[] =
      previous === null ? [] : [{ period: previous.period, report: previous.report, scan: goals.length === 0 ? null : earlierScan(previousData) }];
    // The goals' trend reads a few more months back, only for a client that has goals (no request: files).
    for (const month of goals.length === 0 ? [] : goalLookback(period).slice(1)) {
      const data = await ctx.earlier.data(project.id, month, 'its goals go on without that month');
      if (data !== null) earlier.push({ period: data.period, report: previousContent(data, config.api.fields).report, scan: earlierScan(data) });
    }
    // This month's note from the annotations, else the note for every month.
    const note = monthlyNote(override?.annotations, period) ?? override?.note;
    // The scan sections first: the summary speaks of them (a keyword entering the top 3, the AI answers naming the site).
    const scanned = readScanSections({
      sections: sectionsOn,
      scan: work.scan ?? null,
      before: previousData?.scan === undefined ? null : { scan: previousData.scan, period: previousData.period },
      language,
      required: config.report.requiredSections,
      phrases,
      period,
      site,
    });
    const model = assembleReport({
      project,
      report: report.content,
      ranking,
      previous,
      yearAgo: yearAgoData === null ? null : { period: yearAgoData.period, facts: yearAgoData.facts },
      period,
      generatedAt: ctx.clock().toISOString(),
      language,
      phrases: ctx.renderer.locales.phrases(language),
      agency: { language: config.report.language, phrases: ctx.renderer.locales.phrases(config.report.language) },
      branding: { ...ctx.branding, footer: footerIn(config.agency.footer, language) },
      client: {
        ...(override?.displayName !== undefined ? { displayName: override.displayName } : {}),
        ...(note !== undefined ? { note } : {}),
        sections: sectionSwitches(config, project.id),
        annotations: datedAnnotations(override?.annotations),
      },
      checks: { requiredSections: config.report.requiredSections.filter(isReportSection), maxScoreDrop: config.report.maxScoreDrop },
      goals,
      earlier,
      goalScan: goals.length === 0 ? null : scanGoalSource(work.scan?.data ?? null, on, site),
      // The period's scan holds the month's AI visibility: it wins over the answer's undated values.
      visibility: { scan: readScanVisibility(work.scan, config.api.fields), before: readScanVisibility(previousData?.scan, config.api.fields) },
      // The views the sections built, by name: each the view of the section of that name.
      scanSections: scanned.views,
      // The agency's words for the service's text in the report's language (report.translations), checked when loaded.
      translations: config.report.translations === undefined ? null : ((await loadTranslations(config.report.translations)).get(language) ?? null),
    });
    const withSections = withScanSectionsRead(model, scanned);
    work.notes.push(...report.reading.notes, ...withSections.notes);
    work.sectionsLeftOut = withSections.leftOut;
    work.ranking = ranking;
    work.previous = previous;
    work.language = language;
    work.displayName = override?.displayName?.trim() || null;
    // The glossary again, now that the scan's sections are in: their terms (LCP, CLS…) are the report's too.
    work.model = { ...withSections.model, glossary: buildGlossary(withSections.model, phrases) };
    // The agency index speaks the agency's language, whatever the client's: the goals' labels in it.
    work.indexGoalLabels = goals.flatMap((goal) => {
      const metric = parseGoalMetric(goal.metric);
      if (metric === null) return [];
      return [goalLabel(goal, ctx.renderer.locales.phrases(config.report.language), config.report.language, goalUnit(metric, report.content))];
    });
    return true;
  },
};
