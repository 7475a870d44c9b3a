// Public option and state shapes of the API v1 simulator; `server.ts` re-exports them.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ProjectStatus } from '../spec/vocabulary.js';
import type { DialectOption } from './dialects.js';

/** Accepted by default; printed by the `simulator` command, so it is not a secret. */
export const DEMO_TOKEN = 'demo-0f1e2d3c4b5a69788796a5b4c3d2e1f0';

export type MalformedMode = 'html' | 'truncated' | 'success-false' | 'no-meta' | 'wrong-version' | 'not-found';

export interface FaultOptions {
  /** Added to every response. @default 0 */
  latencyMs?: number;
  /** 0..1 share of requests answered 500/502/503 with an HTML or JSON body (not counted in quota). */
  errorRate?: number;
  /** 0..1 share of requests whose socket is destroyed before any response. */
  dropRate?: number;
  /** RNG seed for fault decisions (deterministic). @default 1 */
  seed?: number;
  /** Per project id: how reports.php (POST and GET for that project's reports) misbehaves. */
  malformed?: Record<number, MalformedMode>;
}

export type ReportMode = 'full' | 'id-only' | 'processing';

export interface SimulatorOptions {
  /** Same seed + same clock → same data. @default 42 */
  seed?: number;
  /** About 70% active, 20% paused, 10% archived. @default 36 */
  projectCount?: number;
  /** Accepted bearer tokens. @default [DEMO_TOKEN] */
  tokens?: string[];
  /** Requests per token per UTC day of the clock. @default 5000 */
  dailyLimit?: number;
  /** @default () => new Date() */
  clock?: () => Date;
  /** Waits used for injected latency. @default setTimeout-based sleep */
  sleep?: (ms: number) => Promise<void>;
  /** projects.php page size when no limit is given. @default 20 */
  defaultPageSize?: number;
  /** POST reports.php answers the full report, only `{id, status:'ready'}`, or `{id, status:'processing'}`. @default 'full' */
  reportMode?: ReportMode;
  /** GETs of each report answering status 'processing' before it is ready. @default 0 */
  reportProcessingReads?: number;
  /** Some project names and recommendation titles carry path, markup, NUL, very long and non-Latin text. @default false */
  hostileNames?: boolean;
  /** The URL the hostile markup points to (tests use a loopback server to prove it is never fetched). */
  hostileRemoteUrl?: string;
  faults?: FaultOptions;
  /**
   * Wire form of every "not shown" content: 'classic' (the reference answers), 'compact' or 'nested' (see
   * dialects.ts for each choice), or a custom Dialect / data transform of the classic answer. @default 'classic'
   */
  dialect?: DialectOption;
  /** Webhook delivery timeout. @default 5000 */
  webhookTimeoutMs?: number;
  /** @default '127.0.0.1' */
  host?: string;
  /** 0 picks a free port. @default 0 */
  port?: number;
}

export interface RecordedRequest {
  method: string;
  /** Last path segment, e.g. 'reports.php'. */
  endpoint: string;
  query: Record<string, string>;
  body: unknown;
  /** Index in `tokens`; null when the token is missing or unknown. */
  tokenIndex: number | null;
  /** 0 when the socket was dropped. */
  status: number;
  at: string;
}

export interface WebhookDeliveryRecord {
  webhookId: number;
  event: string;
  url: string;
  /** HTTP status of the receiver; null when it could not be reached in time. */
  status: number | null;
  body: string;
  signature: string;
}

export interface TokenUsage {
  daily_used: number;
  daily_limit: number;
  daily_remaining: number;
}

export interface SimulatorState {
  readonly requests: RecordedRequest[];
  readonly deliveries: WebhookDeliveryRecord[];
  setFaults(faults: FaultOptions): void;
  usage(tokenIndex: number): TokenUsage;
  projects(): Array<{ id: number; name: string; status: ProjectStatus; language: 'en' | 'fr' }>;
}

export interface SimulatorApp {
  handle(req: IncomingMessage, res: ServerResponse): void;
  state: SimulatorState;
  /** Aborts webhook deliveries still in flight. */
  close(): void;
}

export interface SimulatorHandle {
  url: string;
  port: number;
  state: SimulatorState;
  close(): Promise<void>;
}
