// The quarterly and yearly reviews from the saved months: July, August and September run on the simulator, each on
// its own day, then `run --period 2026-Q3` makes every client's review with no request to the reports endpoint; its
// GEO is September's report's, its change September's minus June's (as July's report told it), a French client's
// review is in French.
import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli.js';
import { Manifest } from '../../src/output/store.js';
import { startSmtpServer } from '../support/email-fixtures.js';
import { monthlyRunDay, toMonth } from '../../src/period.js';
import { factFigure, type Fact } from '../../src/report/facts.js';
import { parsePeriodData, type PeriodData } from '../../src/report/period-data.js';
import { startSimulator, type SimulatorHandle } from '../../src/simulator/server.js';

const exec = promisify(execFile);
const TOKEN = 'tok-reviews-5d1e8a3c7b9f2046';

let sim: SimulatorHandle;
let root: string;
let now = new Date('2026-08-04T06:00:00Z');
let frenchId: number;

async function cli(argv: string[], extraEnv: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await main({
    argv,
    env: { PATH: process.env['PATH'], HOME: root, AGENCY_API_TOKEN: TOKEN, AGENCY_API_BASE_URL: sim.url, ...extraEnv },
    cwd: root,
    stdout: { write: (s: string) => ((stdout += s), true) },
    stderr: { write: (s: string) => ((stderr += s), true) },
    clock: () => now,
    handleSignals: false,
  });
  return { code, stdout, stderr };
}

async function manifestOf(period: string): Promise<Manifest> {
  return Manifest.parse(JSON.parse(await readFile(join(root, 'out', period, 'manifest.json'), 'utf8')));
}

async function monthData(month: string, id: number): Promise<PeriodData> {
  const entry = (await manifestOf(month)).projects.find((e) => e.id === id);
  const data = parsePeriodData(JSON.parse(await readFile(join(root, 'out', month, entry?.files.data as string), 'utf8')));
  if (data === null) throw new Error(`no data of ${month} for ${id}`);
  return data;
}

const text = (html: string): string =>
  html
    .replace(/<style[\s\S]*?<\/style>/g, ' ')
    .replace(/<svg[\s\S]*?<\/svg>/g, ' ')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&#x([0-9a-f]+);/gi, (_m, hex: string) => String.fromCodePoint(parseInt(hex, 16)))
    .replace(/&#(\d+);/g, (_m, dec: string) => String.fromCodePoint(Number(dec)))
    .replace(/&amp;/g, '&')
    .replace(/[\s\u00a0\u202f]+/g, ' ');

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'geo-reviews-'));
  sim = await startSimulator({ projectCount: 4, tokens: [TOKEN], clock: () => now });
  const active = sim.state.projects().filter((p) => p.status === 'active');
  frenchId = active[0]?.id as number;
  const clients = Object.fromEntries(
    active.map((p) => [
      String(p.id),
      {
        email: { to: [`client-${p.id}@example.com`] },
        ...(p.id === frenchId
          ? {
              language: 'fr',
              annotations: [
                { date: '2026-05-03', text: 'Refonte du site' },
                { date: '2026-08-12', text: 'Nouvelle page tarifs' },
              ],
            }
          : {}),
      },
    ]),
  );
  await mkdir(join(root, 'config'));
  await writeFile(
    join(root, 'config', 'geo-reports.json'),
    JSON.stringify({
      agency: { name: 'Northwind Digital' },
      report: { goals: [{ metric: 'geo', target: 90, by: '2027-06' }] },
      delivery: { email: { from: 'Northwind Reports <reports@northwind.example>' } },
      clients,
    }),
  );
  for (const month of ['2026-07', '2026-08', '2026-09']) {
    now = monthlyRunDay(toMonth(month));
    const ran = await cli(['run', '--period', month, '--out', 'out', '--json']);
    expect(ran.code, ran.stderr).toBe(0);
  }
}, 300_000);

afterAll(async () => {
  await sim.close();
  await rm(root, { recursive: true, force: true });
});

describe('the review of a quarter', () => {
  it('is refused before the quarter has ended, naming the day it can be made', async () => {
    now = new Date('2026-09-20T06:00:00Z');
    const early = await cli(['run', '--period', '2026-Q3', '--out', 'out']);
    expect(early.code).toBe(2);
    expect(early.stderr).toContain('2026-Q3 has not ended yet');
    expect(early.stderr).toContain('2026-10-01');
  });

  it('names a month never run, and makes nothing', async () => {
    now = new Date('2026-07-10T06:00:00Z');
    const missing = await cli(['run', '--period', '2026-Q2', '--out', 'out']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('2026-04, 2026-05, 2026-06 were never run');
    expect(missing.stderr).toContain('geo-reports run --period 2026-04');
  });

  it('is made from the saved months with no request: GEO of September, change September − June, in French for a French client', async () => {
    now = new Date('2026-10-05T06:00:00Z');
    const before = sim.state.requests.length;
    const made = await cli(['run', '--period', '2026-Q3', '--out', 'out']);
    expect(made.code, made.stderr + made.stdout).toBe(0);
    expect(sim.state.requests.slice(before)).toEqual([]);
    expect(made.stdout).toContain('requests to the service: 0');
    const review = await manifestOf('2026-Q3');
    const september = await manifestOf('2026-09');
    expect(review.period).toBe('2026-Q3');
    expect(review.status).toBe('complete');
    expect(review.projects.map((e) => e.id).sort()).toEqual(
      september.projects
        .filter((e) => e.status === 'done')
        .map((e) => e.id)
        .sort(),
    );
    let compared = 0;
    for (const entry of review.projects) {
      expect(entry.status).toBe('done');
      const sept = await monthData('2026-09', entry.id);
      const july = await monthData('2026-07', entry.id);
      const seen = JSON.parse(await readFile(join(root, 'out', '2026-Q3', entry.files.data as string), 'utf8')) as { kind: string; facts: Fact[] };
      expect(seen.kind).toBe('review');
      const septGeo = factFigure(sept.facts, 'scores.geo');
      expect(entry.geo).toBe(septGeo);
      expect(factFigure(seen.facts, 'scores.geo')).toBe(septGeo);
      // June was never run: its figure is the one July's report showed for it (its last month, or its history table).
      const juneFact = july.facts?.find((f) => (f.key === 'scores.geo.previous' && f.month === '2026-06') || f.key === 'history.geo.2026-06');
      if (juneFact !== undefined && septGeo !== null) {
        expect(entry.geoChange).toBe(septGeo - juneFact.figure);
        compared += 1;
      }
      // Each month's figure is the one its own report showed.
      for (const month of ['2026-07', '2026-08', '2026-09']) {
        expect(factFigure(seen.facts, `history.geo.${month}`)).toBe(factFigure((await monthData(month, entry.id)).facts, 'scores.geo'));
      }
      const { stdout } = await exec('pdfinfo', [join(root, 'out', '2026-Q3', entry.files.pdf as string)]);
      expect(stdout).toMatch(/Pages:\s+[1-9]/);
    }
    expect(compared).toBeGreaterThan(0);
    const french = review.projects.find((e) => e.id === frenchId);
    expect(french?.language).toBe('fr');
    const html = await readFile(join(root, 'out', '2026-Q3', french?.files.html as string), 'utf8');
    expect(html).toContain('<html lang="fr"');
    const words = text(html);
    expect(words).toContain('Bilan trimestriel');
    // The quarter named as French names it (T3), not as English does (Q3).
    expect(words).toContain('T3 2026');
    expect(words).not.toContain('Q3 2026');
    expect(words).toContain('Ce bilan couvre le T3 2026 : juillet, août et septembre.');
    expect(words).toContain('par rapport à T2 2026');
    // The period's goals with their pace, and the annotations of the quarter only.
    expect(html).toContain('section--goals');
    expect(words).toContain('Nouvelle page tarifs');
    expect(words).not.toContain('Refonte du site');
    const index = text(await readFile(join(root, 'out', '2026-Q3', 'index.html'), 'utf8'));
    expect(index).toContain('Q3 2026');
  }, 180_000);

  it("is mailed once, in the client's language, by send --period 2026-Q3", async () => {
    const smtp = await startSmtpServer();
    try {
      const env = { GEO_REPORTS_SMTP_URL: smtp.url };
      const sent = await cli(['send', '--period', '2026-Q3', '--out', 'out'], env);
      expect(sent.code, sent.stderr + sent.stdout).toBe(0);
      const review = await manifestOf('2026-Q3');
      expect(smtp.accepted).toHaveLength(review.projects.length);
      for (const entry of review.projects) expect(entry.deliveries?.email?.status).toBe('sent');
      const french = smtp.accepted.find((mail) => mail.envelope.to.includes(`client-${frenchId}@example.com`));
      expect(french?.parsed.subject).toContain('T3 2026');
      expect(french?.parsed.subject).toContain('Bilan trimestriel');
      expect(french?.parsed.text).toContain('Veuillez trouver ci-joint votre bilan GEO & SEO du T3 2026');
      expect(french?.parsed.text).toContain('Le bilan en un coup d’œil');
      expect(french?.parsed.attachments.map((a) => a.filename)).toEqual([expect.stringMatching(/-2026-Q3\.pdf$/)]);
      const english = smtp.accepted.find((mail) => !mail.envelope.to.includes(`client-${frenchId}@example.com`));
      expect(english?.parsed.subject).toContain('Q3 2026');
      expect(english?.parsed.text).toContain('Please find attached your GEO & SEO review of Q3 2026');
      // The ledger keeps it from going twice.
      const again = await cli(['send', '--period', '2026-Q3', '--out', 'out'], env);
      expect(again.code, again.stderr).toBe(0);
      expect(smtp.accepted).toHaveLength(review.projects.length);
    } finally {
      await smtp.close();
    }
  }, 120_000);

  it('is made by shards and merged like a month: every client once, with its files', async () => {
    now = new Date('2026-10-06T06:00:00Z');
    for (const shard of ['1', '2']) {
      await cp(join(root, 'out'), join(root, `shard-${shard}`), { recursive: true });
      await rm(join(root, `shard-${shard}`, '2026-Q3'), { recursive: true, force: true });
      const made = await cli(['run', '--period', '2026-Q3', '--shard', `${shard}/2`, '--out', `shard-${shard}`]);
      expect(made.code, made.stderr).toBe(0);
    }
    const merged = await cli(['merge', '--period', '2026-Q3', '--out', 'merged', 'shard-1', 'shard-2']);
    expect(merged.code, merged.stderr + merged.stdout).toBe(0);
    const manifest = Manifest.parse(JSON.parse(await readFile(join(root, 'merged', '2026-Q3', 'manifest.json'), 'utf8')));
    const whole = await manifestOf('2026-Q3');
    expect(manifest.projects.map((e) => e.id).sort()).toEqual(whole.projects.map((e) => e.id).sort());
    for (const entry of manifest.projects) {
      expect(entry.status).toBe('done');
      for (const file of [entry.files.html, entry.files.pdf, entry.files.data]) await readFile(join(root, 'merged', '2026-Q3', file as string));
    }
    expect(text(await readFile(join(root, 'merged', '2026-Q3', 'index.html'), 'utf8'))).toContain('Q3 2026');
  }, 120_000);

  it('is saved to the history branch with its months, and made again from a restored output folder with no request', async () => {
    await exec('git', ['init', '--quiet', '--bare', join(root, 'history.git')]);
    const saved = await cli(['history', 'save', '--storage', join(root, 'history.git'), '--out', 'out']);
    expect(saved.code, saved.stderr).toBe(0);
    const restored = await cli(['history', 'restore', '--storage', join(root, 'history.git'), '--out', 'restored']);
    expect(restored.code, restored.stderr).toBe(0);
    const review = Manifest.parse(JSON.parse(await readFile(join(root, 'restored', '2026-Q3', 'manifest.json'), 'utf8')));
    expect(review.projects.map((e) => e.id).sort()).toEqual((await manifestOf('2026-Q3')).projects.map((e) => e.id).sort());
    for (const entry of review.projects) await readFile(join(root, 'restored', '2026-Q3', entry.files.data as string));
    // A fresh machine: the months come from the branch, and the review is made from them alone.
    await rm(join(root, 'restored', '2026-Q3'), { recursive: true });
    const before = sim.state.requests.length;
    const again = await cli(['run', '--period', '2026-Q3', '--out', 'restored']);
    expect(again.code, again.stderr + again.stdout).toBe(0);
    expect(sim.state.requests.length).toBe(before);
    const remade = Manifest.parse(JSON.parse(await readFile(join(root, 'restored', '2026-Q3', 'manifest.json'), 'utf8')));
    expect(remade.projects.map((e) => [e.id, e.geo, e.geoChange])).toEqual((await manifestOf('2026-Q3')).projects.map((e) => [e.id, e.geo, e.geoChange]));
  }, 120_000);
});
