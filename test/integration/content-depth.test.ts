// Content nested 5,000 levels deep in one section of the service's report, through the real `geo-reports run`: the
// section is left out with a note naming it, and the rest of the report is made, where the whole report failed with
// "Maximum call stack size exceeded". The simulator cannot write such JSON (its JSON.stringify runs out of stack
// too), so a proxy on loopback puts the deep text into its answer.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClassicAnswer } from '../../src/simulator/dialects.js';
import { DEMO_TOKEN, startSimulator, type SimulatorHandle } from '../../src/simulator/server.js';
import { runCli } from '../support/cli.js';

const LEVELS = 5_000;
const MARK = '__nested_5000_levels__';
let root: string;
let sim: SimulatorHandle;
let proxy: Server;
let proxyUrl: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'geo-content-depth-'));
  // The report's trust section carries the mark; every other answer is the simulator's own.
  sim = await startSimulator({
    seed: 5,
    projectCount: 2,
    dialect: (answer: ClassicAnswer) => {
      if (answer.endpoint !== 'reports.php' || answer.query['list'] !== undefined) return answer.data;
      const data = structuredClone(answer.data) as { report: { sections?: { trust?: Record<string, unknown> } } };
      if (data.report.sections?.trust !== undefined) data.report.sections.trust['detail'] = MARK;
      return data;
    },
  });
  const deep = `${'{"level":'.repeat(LEVELS)}"bottom"${'}'.repeat(LEVELS)}`;
  proxy = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const headers = Object.fromEntries(Object.entries(req.headers).filter(([name]) => name !== 'host' && name !== 'content-length')) as Record<
        string,
        string
      >;
      request(`${sim.url}${req.url ?? '/'}`, { method: req.method as 'GET', headers, ...(chunks.length > 0 ? { body: Buffer.concat(chunks) } : {}) })
        .then(async (answer) => {
          const text = (await answer.body.text()).replace(JSON.stringify(MARK), deep);
          res.writeHead(answer.statusCode, { 'content-type': 'application/json; charset=utf-8' }).end(text);
        })
        .catch(() => res.writeHead(502).end());
    });
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
});

afterAll(async () => {
  proxy.closeAllConnections();
  await new Promise<void>((resolve) => proxy.close(() => resolve()));
  await sim.close();
  await rm(root, { recursive: true, force: true });
});

describe('content nested 5,000 levels deep', () => {
  it('leaves out the section it is in, names it, and makes the report', async () => {
    const result = await runCli(['run', '--period', '2026-10', '--out', 'out'], {
      cwd: root,
      env: { ...process.env, AGENCY_API_TOKEN: DEMO_TOKEN, AGENCY_API_BASE_URL: proxyUrl },
    });
    expect(result.stdout + result.stderr).not.toContain('Maximum call stack size exceeded');
    expect(result.code, result.stdout + result.stderr).toBe(0);
    const period = join(root, 'out', '2026-10');
    const slug = (await readdir(period, { withFileTypes: true })).find((entry) => entry.isDirectory())?.name as string;
    const data = JSON.parse(await readFile(join(period, slug, 'data.json'), 'utf8')) as {
      notes: string[];
      report: { report: { sections: Record<string, unknown> } };
    };
    expect(data.notes).toContainEqual(
      expect.stringMatching(
        /^The trust section nests deeper than 64 levels \(at report\.sections\.trust\.detail\.… \(\d+ levels\)\): it is left out of the report\.$/,
      ),
    );
    // Kept without it, the other sections as sent.
    expect(Object.keys(data.report.report.sections)).not.toContain('trust');
    expect(Object.keys(data.report.report.sections)).toEqual(expect.arrayContaining(['scores', 'recommendations', 'history', 'metrics']));
    // The agency reads it where it reads every note: the period's manifest (the index of reports).
    const manifest = JSON.parse(await readFile(join(period, 'manifest.json'), 'utf8')) as { projects: Array<{ status: string; notes: string[] }> };
    expect(manifest.projects.map((p) => p.status)).toEqual(['done']);
    expect(manifest.projects[0]?.notes).toContainEqual(expect.stringMatching(/^The trust section nests deeper than 64 levels/));
    const html = await readFile(join(period, slug, 'report.html'), 'utf8');
    expect(html).not.toContain('"level"');
  });
});
