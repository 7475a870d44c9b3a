// The receiver under slow senders (slowloris), on real loopback connections: hundreds of connections that trickle a
// header byte a second must not keep the service's deliveries out. Each address holds at most its share; a full
// house gives way to new connections by closing the oldest idle one; headers have a short time limit.
import { connect, type Socket } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Listener } from '../../src/events/listener.js';
import { post, scoreChange, signatureHeaders, startReceiver } from '../support/webhook-sender.js';

const SECRET = 'whsec_slowloris0123456789abcdef0123456789abcdef';

interface Slow {
  sockets: Socket[];
  /** How many of them the receiver has closed so far. */
  closed: () => number;
  stop: () => void;
}

/** `count` connections from `from` (a loopback address) that send a request's headers one byte a second. */
async function slowSenders(url: string, from: readonly string[], count: number): Promise<Slow> {
  const { hostname, port } = new URL(url);
  const sockets: Socket[] = [];
  let closed = 0;
  const text = `POST /webhooks HTTP/1.1\r\nHost: ${hostname}\r\nContent-Type: application/json\r\nX-Slow: ${'a'.repeat(200)}\r\n`;
  await Promise.all(
    Array.from(
      { length: count },
      (_, i) =>
        new Promise<void>((resolve) => {
          const socket = connect({ host: hostname, port: Number(port), localAddress: from[i % from.length] });
          socket.on('error', () => undefined);
          socket.once('close', () => {
            closed += 1;
            resolve();
          });
          socket.once('connect', () => {
            socket.write('P');
            resolve();
          });
          sockets.push(socket);
        }),
    ),
  );
  let at = 1;
  const timer = setInterval(() => {
    for (const socket of sockets) if (!socket.destroyed) socket.write(text[at % text.length] ?? 'a');
    at += 1;
  }, 1_000);
  return {
    sockets,
    closed: () => closed,
    stop: () => {
      clearInterval(timer);
      for (const socket of sockets) socket.destroy();
    },
  };
}

let root: string;
let listener: Listener;
let slow: Slow | null = null;

async function start(extra: { maxConnections?: number; maxConnectionsPerAddress?: number; headersTimeoutMs?: number } = {}): Promise<void> {
  root = await mkdtemp(join(tmpdir(), 'geo-listen-slow-'));
  listener = await startReceiver(join(root, 'events'), [SECRET], extra);
}

afterEach(async () => {
  slow?.stop();
  slow = null;
  await listener.close();
  await rm(root, { recursive: true, force: true });
});

/** Posts `count` signed deliveries, four at a time; the time each took to be answered 200. */
async function deliver(prefix: string, count: number): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < count; i += 4) {
    await Promise.all(
      Array.from({ length: Math.min(4, count - i) }, async (_, j) => {
        const body = scoreChange(`${prefix}-${i + j}`, 7, 1);
        const started = performance.now();
        const answer = await post(listener.url, body, signatureHeaders(SECRET, body, 'hex')).catch(() => ({ status: 0 }));
        times.push(answer.status === 200 ? performance.now() - started : Number.POSITIVE_INFINITY);
      }),
    );
  }
  return times;
}

const within = (times: readonly number[], ms: number): number => times.filter((t) => t <= ms).length / times.length;

describe('slow senders', () => {
  it('256 connections trickling their headers from eight addresses: 95 % of valid deliveries answered within 2 s', async () => {
    await start();
    const addresses = Array.from({ length: 8 }, (_, i) => `127.0.0.${i + 2}`);
    slow = await slowSenders(listener.url, addresses, 256);
    // All 256 are open while the deliveries go (the test would prove nothing otherwise).
    expect(slow.closed()).toBe(0);
    const times = await deliver('evt-slow', 60);
    expect(slow.sockets.filter((s) => !s.destroyed).length).toBeGreaterThanOrEqual(250);
    expect(within(times, 2_000)).toBeGreaterThanOrEqual(0.95);
  }, 60_000);

  it('one address opening 300 connections keeps 128 (its newest); another address is served meanwhile', async () => {
    await start();
    slow = await slowSenders(listener.url, ['127.0.0.20'], 300);
    const deadline = Date.now() + 5_000;
    while (slow.closed() < 172 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(slow.closed()).toBe(172);
    expect(within(await deliver('evt-share', 12), 2_000)).toBe(1);
  }, 30_000);

  it('a full house gives way: the oldest connection still sending its headers is closed for a new one', async () => {
    await start({ maxConnections: 40, maxConnectionsPerAddress: 10 });
    slow = await slowSenders(listener.url, ['127.0.0.30', '127.0.0.31', '127.0.0.32', '127.0.0.33'], 40);
    expect(slow.closed()).toBe(0);
    const times = await deliver('evt-full', 12);
    expect(within(times, 2_000)).toBe(1);
    // One slow connection gave its place to each new connection of the deliveries.
    expect(slow.closed()).toBeGreaterThan(0);
  }, 30_000);

  it('a connection that never finishes its headers is closed after the headers time-out, though it keeps sending', async () => {
    await start({ headersTimeoutMs: 2_000 });
    slow = await slowSenders(listener.url, ['127.0.0.40'], 4);
    const deadline = Date.now() + 8_000;
    while (slow.closed() < 4 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(slow.closed()).toBe(4);
  }, 15_000);
});
