// A webhook sender for the receiver's tests: signs a body the ways senders do (hex or base64, prefixes, `t=`)
// and posts it on loopback; plus a chat webhook double that records what it is sent.
import { createHmac } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { startListener, type Listener, type ListenerOptions } from '../../src/events/listener.js';

export type SignatureForm = 'hex' | 'sha256=hex' | 'v1=base64' | 'base64' | 't=,v1=hex';

export function signatureHeaders(secret: string, body: string, form: SignatureForm, now = new Date()): Record<string, string> {
  const mac = (data: string): Buffer => createHmac('sha256', secret).update(data).digest();
  switch (form) {
    case 'hex':
      return { 'x-service-signature': mac(body).toString('hex') };
    case 'sha256=hex':
      return { 'x-service-signature': `sha256=${mac(body).toString('hex')}` };
    case 'v1=base64':
      return { 'x-service-signature': `v1=${mac(body).toString('base64')}` };
    case 'base64':
      return { 'x-service-signature': mac(body).toString('base64') };
    case 't=,v1=hex': {
      const t = Math.floor(now.getTime() / 1000);
      return { 'x-service-signature': `t=${t},v1=${mac(`${t}.${body}`).toString('hex')}` };
    }
  }
}

export interface Posted {
  status: number;
  body: string;
}

/** POSTs `body` with `headers` to `url`; the answer's status and text. */
export async function post(url: string, body: string | Buffer, headers: Record<string, string> = {}): Promise<Posted> {
  const response = await request(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
    headersTimeout: 10_000,
    bodyTimeout: 10_000,
  });
  return { status: response.statusCode, body: await response.body.text() };
}

/** A score.change delivery of the simulator's shape, with a drop of `drop` points from 70. */
export function scoreChange(id: string, projectId: number, drop: number, at = new Date()): string {
  return JSON.stringify({
    id,
    event: 'score.change',
    created_at: at.toISOString(),
    data: { project_id: projectId, score: 'geo_score', previous: 70, current: 70 - drop, change: -drop },
  });
}

export interface ChatDouble {
  url: string;
  /** Bodies received, parsed, in order. */
  received: Array<{ text: string }>;
  /** When it returns true for a request (by its index), the request is never answered. */
  hang: (index: number) => boolean;
  server: Server;
  close(): Promise<void>;
}

/** An incoming-webhook double on loopback: answers 200 "ok" (Slack's answer) and keeps what it got. */
export async function startChatDouble(path = '/services/T000/B000/sEcReTtOkEn'): Promise<ChatDouble> {
  const received: Array<{ text: string }> = [];
  const double: Partial<ChatDouble> = { received, hang: () => false };
  const server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const index = received.length;
      received.push(JSON.parse(Buffer.concat(chunks).toString()) as { text: string });
      if (double.hang?.(index) === true) return;
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(double, {
    url: `http://127.0.0.1:${port}${path}`,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  }) as ChatDouble;
}

/** A port free at this moment on loopback (for a receiver that must be known before it starts). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * A listener that receives only (no alert channel: an alert would fail the test), on a free loopback port at
 * /webhooks, its journal in `dir`; `extra` sets the rest (its log, its limits).
 */
export function startReceiver(dir: string, secrets: string[], extra: Partial<ListenerOptions> = {}): Promise<Listener> {
  return startListener({
    dir,
    host: '127.0.0.1',
    port: 0,
    path: '/webhooks',
    secrets,
    toleranceSeconds: 300,
    policy: { minDrop: 5, cooldownMinutes: 60 },
    channels: [],
    message: async () => {
      throw new Error('no alert channel in this test');
    },
    log: () => undefined,
    ...extra,
  });
}
