// Generated reports: sections built from the project's latest scan, served at once or after some 'processing' reads.
import type { ReportSection } from '../api/schemas.js';
import { historyMonthsOf, metricsAt, monthNumber, recommendationsAt, trustAt, type Dataset, type SimProject } from './data.js';
import { intBetween, round1, streamFor } from './random.js';
import type { ScanStore } from './scans.js';

const FIRST_REPORT_ID = 7001;

export interface ReportRecord {
  id: number;
  projectId: number;
  format: 'json';
  include: ReportSection[];
  createdAt: string;
  sections: Record<string, unknown>;
  reads: number;
}

export function buildReportSections(
  dataset: Dataset,
  scans: ScanStore,
  project: SimProject,
  include: readonly ReportSection[],
  now: Date,
): Record<string, unknown> {
  // The report's history reaches back as far as the project has been followed (historyMonthsOf); its latest is the same.
  const history = scans.projectScans(project, now, historyMonthsOf(project));
  const latest = history.at(-1) ?? null;
  const month = latest?.month ?? project.lastScanMonth ?? monthNumber(now);
  const sections: Record<string, unknown> = {};
  for (const section of include) {
    switch (section) {
      case 'scores':
        sections['scores'] = latest
          ? { geo_score: latest.scores.geo_score, seo_score: latest.scores.seo_score, ai_visibility: latest.scores.ai_visibility }
          : { geo_score: null, seo_score: null, ai_visibility: {} };
        break;
      case 'recommendations':
        sections['recommendations'] = recommendationsAt(dataset, project, month).map(({ id, title, description, priority, category, impact, effort }) => ({
          id,
          title,
          description,
          priority,
          category,
          impact,
          effort,
        }));
        break;
      case 'history':
        sections['history'] = history.map((scan) => ({
          date: scan.createdAt.toISOString().slice(0, 10),
          geo_score: scan.scores.geo_score,
          seo_score: scan.scores.seo_score,
        }));
        break;
      case 'metrics':
        sections['metrics'] = metricsAt(dataset, project, month);
        break;
      case 'trust':
        sections['trust'] = trustAt(dataset, project, month);
        break;
    }
  }
  // A section the published contract never names: clients must carry unknown keys through.
  if (project.hasLocalPresence) {
    const rng = streamFor(dataset.seed, 'local', project.id, month);
    sections['local_presence'] = {
      google_business_profile: 'verified',
      nap_consistency: { value: round1(70 + rng() * 30), unit: '%' },
      local_pack_keywords: intBetween(rng, 0, 12),
      directory_citations: intBetween(rng, 5, 60),
    };
  }
  return sections;
}

export class ReportStore {
  private readonly reports: ReportRecord[] = [];
  private nextId = FIRST_REPORT_ID;

  constructor(private readonly processingReads: number) {}

  add(projectId: number, include: ReportSection[], sections: Record<string, unknown>, now: Date): ReportRecord {
    const record: ReportRecord = { id: this.nextId++, projectId, format: 'json', include, createdAt: now.toISOString(), sections, reads: 0 };
    this.reports.push(record);
    return record;
  }

  get(id: number): ReportRecord | undefined {
    return this.reports.find((r) => r.id === id);
  }

  list(projectId?: number): ReportRecord[] {
    return this.reports.filter((r) => projectId === undefined || r.projectId === projectId).reverse();
  }

  /** As listed: no sections, and not counted as a read. */
  listed(record: ReportRecord): Record<string, unknown> {
    return summary(record, record.reads < this.processingReads ? 'processing' : 'ready');
  }

  /** Counts a read; the first `processingReads` reads of each report answer 'processing'. */
  read(record: ReportRecord): Record<string, unknown> {
    record.reads++;
    return record.reads <= this.processingReads ? summary(record, 'processing') : full(record);
  }
}

export function summary(record: ReportRecord, status: 'ready' | 'processing' = 'ready'): Record<string, unknown> {
  return { id: record.id, project_id: record.projectId, format: record.format, status, created_at: record.createdAt, include: record.include };
}

export function full(record: ReportRecord): Record<string, unknown> {
  return { ...summary(record), sections: record.sections };
}
