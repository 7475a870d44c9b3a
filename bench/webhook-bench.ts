// Benchmark of the webhook receiver: deliveries acknowledged per second, and the time to the answer (median, 99th
// percentile), with 50 in flight over real HTTP on loopback; each answer comes after its delivery is flushed to
// disk (fsync). The receiver runs in this process, the sender too. Prints figures; asserts nothing.
//   npm run bench -- --webhooks            2000 deliveries, 50 in flight
//   npm run bench -- --webhooks 5000 100   chosen count and concurrency
import { createHmac } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import pLimit from 'p-limit';
import { Agent, request } from 'undici';
import { startListener } from '../src/events/listener.js';

const numbers = process.argv
  .slice(2)
  .map(Number)
  .filter((n) => Number.isInteger(n) && n > 0);
const COUNT = numbers[0] ?? 2000;
const IN_FLIGHT = numbers[1] ?? 50;
const SECRET = 'whsec_bench0123456789abcdef0123456789abcdef0123456';

const dir = await mkdtemp(join(tmpdir(), 'geo-webhook-bench-'));
const listener = await startListener({
  dir: join(dir, 'events'),
  host: '127.0.0.1',
  port: 0,
  path: '/webhooks',
  secrets: [SECRET],
  toleranceSeconds: 300,
  policy: { minDrop: 5, cooldownMinutes: 60 },
  channels: [],
  message: async () => {
    throw new Error('no alert channel in the benchmark');
  },
  log: () => undefined,
});
const agent = new Agent({ connections: IN_FLIGHT, keepAliveTimeout: 10_000 });
const limit = pLimit(IN_FLIGHT);
const load = loadavg()[0] ?? 0;
const times: number[] = [];
let failures = 0;
const started = performance.now();
await Promise.all(
  Array.from({ length: COUNT }, (_, i) =>
    limit(async () => {
      // Half of the deliveries are score changes, half completed scans: both kinds of work for the actions.
      const body = JSON.stringify({
        id: `evt_bench_${i}`,
        event: i % 2 === 0 ? 'score.change' : 'scan.completed',
        created_at: new Date().toISOString(),
        data: { project_id: 1000 + (i % 250), score: 'geo_score', previous: 60, current: 60 + (i % 5), geo_score: 60 + (i % 5) },
      });
      const signature = createHmac('sha256', SECRET).update(body).digest('hex');
      const t0 = performance.now();
      const response = await request(listener.url, {
        method: 'POST',
        dispatcher: agent,
        headers: { 'content-type': 'application/json', 'x-service-signature': `sha256=${signature}` },
        body,
      });
      await response.body.dump();
      times.push(performance.now() - t0);
      if (response.statusCode !== 200) failures += 1;
    }),
  ),
);
const elapsed = (performance.now() - started) / 1000;
await listener.idle();
const acted = (performance.now() - started) / 1000;
await listener.close();
await agent.close();
await rm(dir, { recursive: true, force: true });

times.sort((a, b) => a - b);
const at = (q: number): number => times[Math.min(times.length - 1, Math.floor(q * times.length))] ?? 0;
console.log(`Webhook receiver: ${COUNT} signed deliveries, ${IN_FLIGHT} in flight, each flushed to disk (fsync) before its answer`);
console.log(`  acknowledged: ${(COUNT / elapsed).toFixed(0)} per second (${elapsed.toFixed(2)} s); not 200: ${failures}`);
console.log(`  time to the answer: median ${at(0.5).toFixed(1)} ms, p99 ${at(0.99).toFixed(1)} ms, max ${(times.at(-1) ?? 0).toFixed(1)} ms`);
console.log(`  every delivery acted on after ${acted.toFixed(2)} s`);
console.log(`  load average before: ${load.toFixed(2)}, after: ${(loadavg()[0] ?? 0).toFixed(2)}`);
