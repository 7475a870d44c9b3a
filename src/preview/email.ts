// The preview's /email page: the message `send` would write for the report shown, made from the same model by the
// same builder and the template folder's email.hbs, with its logo shown inline (the page has no cid: parts).
import { footerIn } from '../config/branding.js';
import type { Config } from '../config/schema.js';
import { buildReportMessage } from '../delivery/email/message.js';
import { periodLabel } from '../period.js';
import type { HtmlRenderer } from '../render/html.js';
import { reportFigures } from '../report/email-model.js';
import type { Branding, ReportModel } from '../report/model.js';

/** What a client's page address looks like in the preview: the real one needs the link secret, which it never reads. */
const SAMPLE_TOKEN = 'preview-address-made-by-publish';

export function previewEmailHtml(model: ReportModel, config: Config, renderer: Pick<HtmlRenderer, 'locales' | 'renderEmail'>, branding: Branding): string {
  const language = model.meta.language;
  const email = config.delivery.email;
  const baseUrl = config.site.baseUrl;
  const link = email.link && baseUrl !== undefined ? `${baseUrl.replace(/\/+$/, '')}/c/${SAMPLE_TOKEN}/` : null;
  const message = buildReportMessage({
    period: model.meta.period,
    periodLabel: periodLabel(model.meta.period, language),
    project: { id: model.meta.projectId, slug: `${model.meta.projectId}` },
    clientName: model.client.name,
    language,
    messages: renderer.locales.phrases(language),
    recipients: { to: ['client@example.invalid'], cc: [], bcc: [] },
    summary: model.summary,
    figures: reportFigures(model),
    note: model.client.note,
    branding: { ...branding, footer: footerIn(config.agency.footer, language) },
    renderHtml: (m, logo, logoSize) => renderer.renderEmail(m, logo, logoSize),
    link,
    attach: link === null || email.attach,
    agency: { name: config.agency.name, contact: config.agency.contact, bcc: [] },
    from: email.from ?? config.agency.contact.email ?? 'reports@example.invalid',
  });
  if (message.logo === null || branding.logoDataUri === undefined) return message.html;
  return message.html.replaceAll(`cid:${message.logo.cid}`, branding.logoDataUri);
}
