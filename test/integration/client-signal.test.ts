// The client's calls leave no listener on the caller's long-lived signal (a batch of hundreds of calls shares one).
import { getEventListeners } from 'node:events';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ApiClient } from '../../src/api/client.js';
import { TokenPool } from '../../src/api/tokens.js';
import { startSimulator, type SimulatorHandle } from '../../src/simulator/server.js';

const TOKEN = 'sim-token-signal-0000000001';
let sim: SimulatorHandle;

beforeAll(async () => {
  sim = await startSimulator({ seed: 3, projectCount: 30, tokens: [TOKEN] });
});
afterAll(async () => {
  await sim.close();
});

it('holds one abort listener on the caller signal, however many calls run at once', async () => {
  const controller = new AbortController();
  const warnings: string[] = [];
  const onWarning = (warning: Error): void => {
    warnings.push(warning.name);
  };
  process.on('warning', onWarning);
  const client = new ApiClient({ baseUrl: sim.url, tokens: new TokenPool([TOKEN]), signal: controller.signal });
  try {
    const projects = (await client.listProjects({ limit: 30 })).projects;
    let peak = 0;
    const calls = projects.flatMap((project) => [
      client.getProject(project.id),
      client.getProject(project.id).then((p) => {
        peak = Math.max(peak, getEventListeners(controller.signal, 'abort').length);
        return p;
      }),
    ]);
    await Promise.all(calls);
    // One listener for the client, not one per call in flight; gone once the client is closed.
    expect(peak).toBe(1);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1);
    await new Promise((resolve) => setImmediate(resolve));
    expect(warnings).not.toContain('MaxListenersExceededWarning');
  } finally {
    process.off('warning', onWarning);
    await client.close();
  }
  expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
});
