// Scans of every project: one monthly scan derived from the seed, plus the scans produced by analyses.
import type { QuestionType } from '../api/schemas.js';
import { AI_ASSISTANTS } from './catalog.js';
import { HISTORY_MONTHS, monthNumber, scoresAt, type Dataset, type MonthScores, type SimProject } from './data.js';
import { clamp, intBetween, streamFor } from './random.js';

/** Audit ids are scan ids shifted by this offset, so either can be decoded from the other. */
const AUDIT_ID_OFFSET = 500_000_000;
/** Scans produced by analyses are numbered from here, far above monthly scan ids. */
const FIRST_ON_DEMAND_SCAN_ID = 90_000_001;

export interface ScanRecord {
  id: number;
  projectId: number;
  auditId: number;
  month: number;
  createdAt: Date;
  kind: 'monthly' | 'on-demand';
  questionType: QuestionType;
  analysisId: number | null;
  scores: MonthScores;
}

export class ScanStore {
  private readonly onDemand: ScanRecord[] = [];
  private nextId = FIRST_ON_DEMAND_SCAN_ID;
  private readonly byId: Map<number, SimProject>;

  constructor(private readonly dataset: Dataset) {
    this.byId = new Map(dataset.projects.map((p) => [p.id, p]));
  }

  project(id: number): SimProject | undefined {
    return this.byId.get(id);
  }

  private monthlyScan(project: SimProject, month: number): ScanRecord {
    const year = Math.floor(month / 12);
    const id = project.id * 10_000 + (year % 100) * 100 + (month % 12) + 1;
    return {
      id,
      projectId: project.id,
      auditId: id + AUDIT_ID_OFFSET,
      month,
      createdAt: new Date(Date.UTC(year, month % 12, 1, 2 + (project.index % 4), (project.index * 7) % 60)),
      kind: 'monthly',
      questionType: 'general',
      analysisId: null,
      scores: scoresAt(this.dataset, project, month),
    };
  }

  private monthlyExists(project: SimProject, scan: ScanRecord, now: Date): boolean {
    return (
      scan.month > project.createdMonth && (project.lastScanMonth === null || scan.month <= project.lastScanMonth) && scan.createdAt.getTime() <= now.getTime()
    );
  }

  /** Scans of the last twelve months up to `now` (or of the last `months`), oldest first. */
  projectScans(project: SimProject, now: Date, months = HISTORY_MONTHS): ScanRecord[] {
    const current = monthNumber(now);
    const scans: ScanRecord[] = [];
    for (let month = current - months + 1; month <= current; month++) {
      const scan = this.monthlyScan(project, month);
      if (this.monthlyExists(project, scan, now)) scans.push(scan);
    }
    for (const scan of this.onDemand) {
      if (scan.projectId === project.id && scan.month > current - months && scan.createdAt.getTime() <= now.getTime()) {
        scans.push(scan);
      }
    }
    return scans.sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || a.id - b.id);
  }

  latest(project: SimProject, now: Date): ScanRecord | null {
    return this.projectScans(project, now).at(-1) ?? null;
  }

  scanById(id: number, now: Date): ScanRecord | null {
    const produced = this.onDemand.find((s) => s.id === id);
    if (produced) return produced.createdAt.getTime() <= now.getTime() ? produced : null;
    const project = this.byId.get(Math.floor(id / 10_000));
    const rest = id % 10_000;
    const monthOfYear = rest % 100;
    if (!project || monthOfYear < 1 || monthOfYear > 12) return null;
    const scan = this.monthlyScan(project, (2000 + Math.floor(rest / 100)) * 12 + monthOfYear - 1);
    return scan.id === id && this.monthlyExists(project, scan, now) ? scan : null;
  }

  scanByAuditId(auditId: number, now: Date): ScanRecord | null {
    return auditId > AUDIT_ID_OFFSET ? this.scanById(auditId - AUDIT_ID_OFFSET, now) : null;
  }

  /** Records the scan an analysis produced: the month's scores moved by a few seeded points. */
  addFromAnalysis(project: SimProject, analysisId: number, questionType: QuestionType, at: Date): ScanRecord {
    const month = monthNumber(at);
    const base = scoresAt(this.dataset, project, month);
    const shift = intBetween(streamFor(this.dataset.seed, 'analysis-shift', analysisId), -4, 4);
    const ai_visibility = { ...base.ai_visibility };
    for (const assistant of AI_ASSISTANTS) ai_visibility[assistant] = clamp(ai_visibility[assistant] + shift, 0, 100);
    const id = this.nextId++;
    const scan: ScanRecord = {
      id,
      projectId: project.id,
      auditId: id + AUDIT_ID_OFFSET,
      month,
      createdAt: at,
      kind: 'on-demand',
      questionType,
      analysisId,
      scores: { ...base, geo_score: clamp(base.geo_score + shift, 0, 100), ai_visibility },
    };
    this.onDemand.push(scan);
    return scan;
  }

  /** Every scan of every project within the window, for statistics. */
  allScans(now: Date): ScanRecord[] {
    return this.dataset.projects.flatMap((p) => this.projectScans(p, now));
  }
}
