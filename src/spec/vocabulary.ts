// The closed lists of words API v1 speaks (statuses, sections, events…): one list each, every type and check
// derived from it. Free of zod so the CLI can print them in --help without loading the schemas.

export const PROJECT_STATUSES = ['active', 'paused', 'archived'] as const;
export const QUESTION_TYPES = ['general', 'ecommerce', 'local', 'saas'] as const;
export const PRIORITIES = ['critical', 'high', 'medium', 'low'] as const;
export const CATEGORIES = ['seo', 'content', 'technical', 'ai_visibility'] as const;
export const WEBHOOK_EVENTS = ['scan.completed', 'scan.failed', 'score.change'] as const;
export const REPORT_SECTIONS = ['scores', 'recommendations', 'history', 'metrics', 'trust'] as const;
export const REPORT_FORMATS = ['json'] as const;
export const SCAN_SECTIONS = ['analysis', 'geo', 'trust', 'metrics', 'action_items', 'seo_audit', 'seo_domain', 'metadata', 'html'] as const;
/** Sections delivered when a scan is read without include/exclude (spec: all but metadata and html). */
export const DEFAULT_SCAN_SECTIONS = SCAN_SECTIONS.filter((s) => s !== 'metadata' && s !== 'html');
/** Analysis states the simulator uses; any other string is shown as it comes. */
export const ANALYSIS_FINAL_STATES = ['completed', 'failed'] as const;
/** Report states in which its sections are there to read. */
export const REPORT_FINAL_STATES = ['ready', 'completed', 'done'] as const;

export type ProjectStatus = (typeof PROJECT_STATUSES)[number];
export type QuestionType = (typeof QUESTION_TYPES)[number];
export type Priority = (typeof PRIORITIES)[number];
export type Category = (typeof CATEGORIES)[number];
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];
export type ReportSection = (typeof REPORT_SECTIONS)[number];
export type ScanSection = (typeof SCAN_SECTIONS)[number];

export const isReportSection = (name: string): name is ReportSection => (REPORT_SECTIONS as readonly string[]).includes(name);

/**
 * Words a service may use for the state of a report or an analysis (the spec does not show them), compared after
 * normaliseKey: finished, still being built, or failed. Others: judged by content.
 */
export const REPORT_STATUS_WORDS = {
  finished: ['ready', 'completed', 'complete', 'done', 'success', 'succeeded', 'successful', 'finished', 'generated', 'available', 'ok'],
  building: ['processing', 'pending', 'queued', 'running', 'inprogress', 'generating', 'started', 'waiting', 'created', 'scheduled', 'building'],
  failed: ['failed', 'failure', 'error', 'errored', 'cancelled', 'canceled', 'aborted', 'expired'],
} as const;
