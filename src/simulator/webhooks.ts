// Webhook registry and signed deliveries over real HTTP, each bounded by a timeout.
import { randomBytes } from 'node:crypto';
import { Agent, request } from 'undici';
import { WEBHOOK_EVENTS, type WebhookEvent } from '../api/schemas.js';
import { signPayload } from '../api/signature.js';
import { invalid } from './http.js';
import type { WebhookDeliveryRecord } from './types.js';

export interface StoredWebhook {
  id: number;
  name: string;
  url: string;
  events: WebhookEvent[];
  secret: string;
  created_at: string;
}

export function publicWebhook(webhook: StoredWebhook): Omit<StoredWebhook, 'secret'> & { active: boolean } {
  const { secret: _secret, ...rest } = webhook;
  return { ...rest, active: true };
}

export function parseWebhookInput(body: Record<string, unknown>): { name: string; url: string; events: WebhookEvent[] } {
  const { name, url, events } = body;
  if (typeof name !== 'string' || name.trim() === '' || name.length > 200) throw invalid('Field name must be a non-empty string of at most 200 characters.');
  if (typeof url !== 'string' || !URL.canParse(url) || !['http:', 'https:'].includes(new URL(url).protocol)) {
    throw invalid('Field url must be an http or https URL.');
  }
  const known = WEBHOOK_EVENTS as readonly string[];
  if (!Array.isArray(events) || events.length === 0 || !events.every((e): e is WebhookEvent => typeof e === 'string' && known.includes(e))) {
    throw invalid(`Field events must be a non-empty array of ${WEBHOOK_EVENTS.join(', ')}.`);
  }
  return { name, url, events: [...new Set(events)] };
}

export class WebhookRegistry {
  private readonly webhooks: StoredWebhook[] = [];
  private nextId = 1;
  private nextEvent = 1;
  private readonly pending = new Set<Promise<unknown>>();
  private readonly closing = new AbortController();
  private readonly agent = new Agent({ keepAliveTimeout: 1_000, connections: 16 });

  constructor(
    private readonly timeoutMs: number,
    private readonly clock: () => Date,
    readonly deliveries: WebhookDeliveryRecord[],
    private readonly newSecret: () => string = () => `whsec_${randomBytes(24).toString('hex')}`,
  ) {}

  create(input: { name: string; url: string; events: WebhookEvent[] }): StoredWebhook {
    const webhook: StoredWebhook = { id: this.nextId++, ...input, secret: this.newSecret(), created_at: this.clock().toISOString() };
    this.webhooks.push(webhook);
    return webhook;
  }

  list(): StoredWebhook[] {
    return [...this.webhooks];
  }

  get(id: number): StoredWebhook | undefined {
    return this.webhooks.find((w) => w.id === id);
  }

  /** Sends one signed delivery and records it; resolves with the receiver's status, null when unreachable. */
  deliver(webhook: StoredWebhook, event: string, data: unknown): Promise<number | null> {
    const body = JSON.stringify({ id: `evt_${String(this.nextEvent++).padStart(6, '0')}`, event, created_at: this.clock().toISOString(), data });
    const signature = signPayload(webhook.secret, body);
    const attempt = (async () => {
      let status: number | null = null;
      try {
        const response = await request(webhook.url, {
          method: 'POST',
          dispatcher: this.agent,
          headers: {
            'content-type': 'application/json',
            'user-agent': 'AgencyIntegrationAPI-Webhooks/1.0',
            'x-service-event': event,
            'x-service-signature': signature,
          },
          body,
          signal: AbortSignal.any([this.closing.signal, AbortSignal.timeout(this.timeoutMs)]),
        });
        await response.body.dump();
        status = response.statusCode;
      } catch {
        status = null;
      }
      this.deliveries.push({ webhookId: webhook.id, event, url: webhook.url, status, body, signature });
      return status;
    })();
    this.pending.add(attempt);
    void attempt.finally(() => this.pending.delete(attempt));
    return attempt;
  }

  /** Fire-and-forget deliveries of one event to every subscribed webhook. */
  dispatch(event: WebhookEvent, data: unknown): void {
    for (const webhook of this.webhooks) if (webhook.events.includes(event)) void this.deliver(webhook, event, data);
  }

  async close(): Promise<void> {
    this.closing.abort();
    await Promise.allSettled([...this.pending]);
    await this.agent.close().catch(() => undefined);
  }
}
