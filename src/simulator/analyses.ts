// Analyses move with the clock: queued, running after 2 s, then completed (with a scan) or failed after 10 s.
import type { QuestionType, WebhookEvent } from '../api/schemas.js';
import type { SimProject } from './data.js';
import type { ScanStore } from './scans.js';

const RUNNING_AFTER_MS = 2_000;
const FINISHED_AFTER_MS = 10_000;
const FIRST_ANALYSIS_ID = 5001;
export const ANALYSIS_FAILURE = 'The crawler could not reach the domain (connection timed out).';

interface AnalysisRecord {
  id: number;
  project: SimProject;
  questionType: QuestionType;
  startedAt: Date;
  finished: boolean;
  scanId: number | null;
}

export interface AnalysisEvent {
  event: WebhookEvent;
  data: Record<string, unknown>;
}

export class AnalysisTracker {
  private readonly analyses: AnalysisRecord[] = [];
  private nextId = FIRST_ANALYSIS_ID;

  constructor(private readonly scans: ScanStore) {}

  start(project: SimProject, questionType: QuestionType, now: Date): AnalysisRecord {
    const record: AnalysisRecord = { id: this.nextId++, project, questionType, startedAt: now, finished: false, scanId: null };
    this.analyses.push(record);
    return record;
  }

  get(id: number): AnalysisRecord | undefined {
    return this.analyses.find((a) => a.id === id);
  }

  /** Finishes every analysis whose time has come and returns the events to deliver, in order. */
  sweep(now: Date): AnalysisEvent[] {
    const events: AnalysisEvent[] = [];
    for (const analysis of this.analyses) {
      const endsAt = new Date(analysis.startedAt.getTime() + FINISHED_AFTER_MS);
      if (analysis.finished || endsAt.getTime() > now.getTime()) continue;
      analysis.finished = true;
      const { project } = analysis;
      if (project.failsAnalysis) {
        events.push({
          event: 'scan.failed',
          data: { analysis_id: analysis.id, project_id: project.id, error: ANALYSIS_FAILURE, failed_at: endsAt.toISOString() },
        });
        continue;
      }
      const previous = this.scans.latest(project, endsAt);
      const scan = this.scans.addFromAnalysis(project, analysis.id, analysis.questionType, endsAt);
      analysis.scanId = scan.id;
      events.push({
        event: 'scan.completed',
        data: {
          analysis_id: analysis.id,
          project_id: project.id,
          scan_id: scan.id,
          audit_id: scan.auditId,
          geo_score: scan.scores.geo_score,
          seo_score: scan.scores.seo_score,
          completed_at: endsAt.toISOString(),
        },
      });
      if (previous && previous.scores.geo_score !== scan.scores.geo_score) {
        events.push({
          event: 'score.change',
          data: {
            project_id: project.id,
            scan_id: scan.id,
            previous_scan_id: previous.id,
            score: 'geo_score',
            previous: previous.scores.geo_score,
            current: scan.scores.geo_score,
            change: scan.scores.geo_score - previous.scores.geo_score,
          },
        });
      }
    }
    return events;
  }

  view(analysis: AnalysisRecord, now: Date): Record<string, unknown> {
    const elapsed = now.getTime() - analysis.startedAt.getTime();
    const base = {
      id: analysis.id,
      project_id: analysis.project.id,
      question_type: analysis.questionType,
      created_at: analysis.startedAt.toISOString(),
    };
    if (elapsed < RUNNING_AFTER_MS) return { ...base, status: 'queued', progress: 0, scan_id: null, error: null };
    if (elapsed < FINISHED_AFTER_MS || !analysis.finished) {
      const progress = Math.min(95, Math.round(((elapsed - RUNNING_AFTER_MS) / (FINISHED_AFTER_MS - RUNNING_AFTER_MS)) * 100));
      return { ...base, status: 'running', progress, scan_id: null, error: null };
    }
    const finishedAt = new Date(analysis.startedAt.getTime() + FINISHED_AFTER_MS).toISOString();
    if (analysis.scanId === null) return { ...base, status: 'failed', progress: 100, scan_id: null, error: ANALYSIS_FAILURE, finished_at: finishedAt };
    return { ...base, status: 'completed', progress: 100, scan_id: analysis.scanId, error: null, finished_at: finishedAt };
  }
}
