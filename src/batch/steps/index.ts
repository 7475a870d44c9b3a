// The steps every project goes through, in order. A new step: one module here, one line below.
import type { ProjectStep } from '../pipeline.js';
import { assemble } from './assemble.js';
import { fetchReport } from './fetch-report.js';
import { fetchScan } from './fetch-scan.js';
import { noteComparison } from './note-comparison.js';
import { printPdf } from './print-pdf.js';
import { renderHtml } from './render-html.js';
import { writeData } from './write-data.js';

export const PROJECT_STEPS: readonly ProjectStep[] = [
  fetchReport, // report answer, read           (api lane)
  fetchScan, //   the period's scan, for the scan sections (api lane)
  assemble, //    → ReportModel                      (print lane, from here on)
  noteComparison, // → notes on the benchmark figures, for the agency
  writeData, //   → data.json
  renderHtml, //  → report.html
  printPdf, //    → report.pdf
];
