// A report made before its period ended (`run --partial` on 27 November) is named "so far this month" in every view:
// the agency index the run writes, the index `send` rewrites in another language, and each client's mail (real SMTP
// on loopback), in English and in French; the manifest records how the reports were made.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type SimulatorHandle } from '../../src/simulator/server.js';
import { startBatchRig } from '../support/batch.js';
import { spawnCli } from '../support/cli.js';
import { startSmtpServer, writeConfig, type SmtpTestServer } from '../support/email-fixtures.js';
import { Manifest } from '../../src/output/store.js';
import { toMonth } from '../../src/period.js';

const TOKEN = 'tok-partial-period-5c2e8b1d7a9f4036';
const PERIOD = toMonth('2026-11');
/** The run is made on 27 November: three weeks of the month. */
const ON_27_NOVEMBER = (): Date => new Date('2026-11-27T10:00:00Z');

let root: string;
let sim: SimulatorHandle;
let smtp: SmtpTestServer;
let english: number;
let french: number;

const rawConfig = (language: 'en' | 'fr'): Record<string, unknown> => ({
  agency: { name: 'Northwind Digital', contact: { email: 'hello@northwind.example' } },
  report: { language },
  delivery: { email: { from: 'Northwind Reports <reports@northwind.example>' } },
  clients: {
    [String(english)]: { email: { to: ['en-client@client.example'] } },
    [String(french)]: { language: 'fr', email: { to: ['fr-client@client.example'] } },
  },
});

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'geo-partial-'));
  sim = await startSimulator({ projectCount: 4, tokens: [TOKEN], clock: ON_27_NOVEMBER });
  const active = sim.state
    .projects()
    .filter((p) => p.status === 'active')
    .map((p) => p.id)
    .sort((a, b) => a - b);
  [english = 0, french = 0] = active;
  smtp = await startSmtpServer();
});
afterAll(async () => {
  await smtp.close();
  await sim.close();
  await rm(root, { recursive: true, force: true });
});

describe('a period reported before it ended', () => {
  it('the index and each mail say "so far this month", in English and French', async () => {
    const out = join(root, 'out');
    const config = await writeConfig(join(root, 'config.json'), rawConfig('en'));
    const rig = await startBatchRig();
    try {
      await rig.run({
        baseUrl: sim.url,
        tokens: [TOKEN],
        period: PERIOD,
        outDir: out,
        config,
        clock: ON_27_NOVEMBER,
        selection: { statuses: ['active'], projectIds: [english, french] },
      });
    } finally {
      await rig.close();
    }
    const manifest = Manifest.parse(JSON.parse(await readFile(join(out, PERIOD, 'manifest.json'), 'utf8')));
    expect(manifest.projects.map((p) => [p.id, p.status, p.madeBeforeEnd])).toEqual([
      [english, 'done', true],
      [french, 'done', true],
    ]);
    expect(await readFile(join(out, PERIOD, 'index.html'), 'utf8')).toContain('November 2026, so far this month');

    // `send` rewrites the index in the config's language (French here), and mails each client in its own.
    await writeConfig(join(root, 'config-fr.json'), rawConfig('fr'));
    const sent = await spawnCli(['send', '--period', PERIOD, '--out', out, '--config', join(root, 'config-fr.json')], {
      cwd: root,
      env: { ...process.env, GEO_REPORTS_SMTP_URL: smtp.url },
    }).done;
    expect(sent.code, sent.stdout + sent.stderr).toBe(0);
    expect(await readFile(join(out, PERIOD, 'index.html'), 'utf8')).toContain('novembre 2026, depuis le début du mois');
    const mailTo = (address: string) => smtp.accepted.find((mail) => mail.envelope.to.includes(address))?.parsed;
    const inEnglish = mailTo('en-client@client.example');
    const inFrench = mailTo('fr-client@client.example');
    expect(inEnglish?.html).toContain('November 2026, so far this month');
    expect(inFrench?.html).toContain('novembre 2026, depuis le début du mois');
    expect(inEnglish?.text ?? '').toContain('so far this month');
  }, 240_000);
});
