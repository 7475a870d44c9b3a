// Injected failures: latency, 5xx answers, dropped sockets and malformed reports, decided by a seeded RNG.
import { mulberry32, type Rng } from './random.js';
import type { FaultOptions, MalformedMode } from './types.js';

export type FaultDecision = { kind: 'none' } | { kind: 'drop' } | { kind: 'error'; status: 500 | 502 | 503 };

export class FaultInjector {
  private faults: FaultOptions = {};
  private rng: Rng = mulberry32(1);

  constructor(faults: FaultOptions = {}) {
    this.set(faults);
  }

  set(faults: FaultOptions): void {
    this.faults = { ...faults, malformed: { ...(faults.malformed ?? {}) } };
    this.rng = mulberry32(faults.seed ?? 1);
  }

  get latencyMs(): number {
    return Math.max(0, this.faults.latencyMs ?? 0);
  }

  decide(): FaultDecision {
    const dropRate = this.faults.dropRate ?? 0;
    const errorRate = this.faults.errorRate ?? 0;
    if (dropRate <= 0 && errorRate <= 0) return { kind: 'none' };
    if (this.rng() < dropRate) return { kind: 'drop' };
    if (this.rng() < errorRate) {
      const statuses = [500, 502, 503] as const;
      return { kind: 'error', status: statuses[Math.floor(this.rng() * statuses.length)] ?? 500 };
    }
    return { kind: 'none' };
  }

  malformedFor(projectId: number): MalformedMode | undefined {
    return this.faults.malformed?.[projectId];
  }
}

const GATEWAY_PAGE = (status: number, title: string) =>
  `<!DOCTYPE html>\n<html><head><title>${status} ${title}</title></head><body><center><h1>${status} ${title}</h1></center><hr><center>nginx</center></body></html>\n`;

/** Body of an injected 5xx: 500 as JSON, 502/503 as the HTML page of a gateway. */
export function faultBody(status: 500 | 502 | 503): { contentType: string; body: string } {
  if (status === 500) {
    return {
      contentType: 'application/json; charset=utf-8',
      body: JSON.stringify({ success: false, error: { code: 'internal_error', message: 'Internal server error' } }),
    };
  }
  return { contentType: 'text/html; charset=utf-8', body: GATEWAY_PAGE(status, status === 502 ? 'Bad Gateway' : 'Service Temporarily Unavailable') };
}

export function htmlErrorPage(status: number): string {
  return GATEWAY_PAGE(status, 'Bad Gateway');
}
