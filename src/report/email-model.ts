// The message that carries a client's report (`geo-reports send`): what email.hbs gets. Declared as a zod schema
// like the report's model, so the template reference (docs/templates.md) and `template check` know its names.
// Its figures are the report's own (the manifest keeps them when the report is made), written with the report's
// helpers ({{score}}, {{delta}}), so a number reads the same in the mail and in the PDF.
import { z } from 'zod';
import { LanguageCodeSchema } from '../i18n/locales.js';
import { BrandingSchema, DeltaSchema, type ReportModel } from './model.js';
import { biggestAiMover } from './summary.js';

export const EmailFigureSchema = z
  .object({
    key: z.string().describe('"geo", "seo", or "ai:<assistant>" for the AI assistant whose visibility moved the most.'),
    fact: z
      .string()
      .describe(
        'The key of its fact in the report\'s fact table ("scores.geo", "scores.seo", "ai.<assistant>"): put it in a `data-fact` attribute on the element that writes the value, and the check before sending compares it with the report.',
      ),
    label: z.string().describe('Its name, in the client\'s language ("GEO score", "Visibility on Gemini").'),
    value: z.number().nullable().describe('0–100, as the report shows it; write it with {{score value}}.'),
    change: DeltaSchema.nullable().describe('Change since the month before, as the report shows it; null on a first report.'),
  })
  .describe('One headline figure of the month.');
export type EmailFigure = z.infer<typeof EmailFigureSchema>;

export const EmailModelSchema = z.object({
  language: LanguageCodeSchema.describe('The language the report was made in: the mail speaks it too.'),
  subject: z.string().describe("The message's subject, also the page's <title>."),
  preheader: z.string().describe('The line mail clients show after the subject in the inbox (hidden in the message itself).'),
  branding: BrandingSchema,
  client: z.object({ name: z.string().describe('The name the report was made with.') }).describe('The client the message is for.'),
  period: z.string().describe('YYYY-MM'),
  periodLabel: z.string().describe('Localised, e.g. "October 2026" / "octobre 2026".'),
  testNote: z.string().nullable().describe('In a test send: who the real message goes to; null otherwise.'),
  greeting: z.string().describe('"Hello Anne," with the contact\'s name (clients."<id>".email.name), else "Hello,".'),
  intro: z.string().describe('The first sentence: the report of the month, attached or online.'),
  note: z.string().nullable().describe("The account manager's note of the month, as in the report; null when none."),
  figuresTitle: z.string().describe('Heading of the figures ("This month at a glance").'),
  figures: z.array(EmailFigureSchema).describe('GEO, SEO, and the AI assistant whose visibility moved the most (when one did).'),
  summaryTitle: z.string().nullable().describe('Heading of the summary; null when the report has no summary.'),
  summary: z.array(z.string()).describe("The report's summary sentences, in the client's language."),
  button: z
    .object({ label: z.string(), url: z.string().describe("The client's page of the published site.") })
    .nullable()
    .describe("The button to the client's page when client links are on; null otherwise."),
  attachment: z.string().nullable().describe('The sentence naming the attached PDF; null when the link alone is sent.'),
  questions: z.string(),
  contact: z.array(z.string()).describe("The agency's contact lines (agency.contact), already labelled."),
  closing: z.string(),
  accountManager: z.string().nullable().describe('The account manager who signs (clients."<id>".accountManager); null when none is named.'),
  signature: z.string().describe('The agency name.'),
});
export type EmailModel = z.infer<typeof EmailModelSchema>;

/** The headline figures of a report, as the manifest keeps them for its message: GEO, SEO, and the AI mover. */
export interface ReportFigures {
  geo: number | null;
  geoChange: number | null;
  seo: number | null;
  seoChange: number | null;
  /** The assistant whose visibility changed the most since the month before (the summary names it); absent when none changed. */
  aiMover?: { assistant: string; label: string; value: number; change: number } | undefined;
}

/** The figures of `model` its message shows: the same values as the report's headline. Pure. */
export function reportFigures(model: ReportModel): ReportFigures {
  const mover = biggestAiMover(model.scores?.aiVisibility ?? []);
  // A review's headline is its own: the period's figures and their change since the previous period.
  const review = model.review?.scores;
  if (review !== undefined) {
    const of = (kind: 'geo' | 'seo') => review.find((s) => s.kind === kind);
    return {
      geo: of('geo')?.value ?? null,
      geoChange: of('geo')?.sincePrevious?.value ?? null,
      seo: of('seo')?.value ?? null,
      seoChange: of('seo')?.sincePrevious?.value ?? null,
    };
  }
  return {
    geo: model.scores?.geo.value ?? null,
    geoChange: model.scores?.geo.change?.value ?? null,
    seo: model.scores?.seo.value ?? null,
    seoChange: model.scores?.seo.change?.value ?? null,
    ...(mover?.value == null || mover.change === null
      ? {}
      : { aiMover: { assistant: mover.assistant, label: mover.label, value: mover.value, change: mover.change.value } }),
  };
}
