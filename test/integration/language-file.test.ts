// A language added by one file: the agency's template folder holds locales/eo.json alone (a fixture), a client is
// set to "eo", and the batch writes that client's report in it, English underneath the keys the file lacks, with no
// line of code naming the language.
import { copyFile, mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toMonth } from '../../src/period.js';
import { ConfigSchema } from '../../src/config/schema.js';
import { LANGUAGES } from '../../src/i18n/locales.js';
import { Manifest } from '../../src/output/store.js';
import { createHtmlRenderer } from '../../src/render/html.js';
import { loadTemplates } from '../../src/render/template-check/load.js';
import { startSimulator, type SimulatorHandle } from '../../src/simulator/server.js';
import { startBatchRig, type BatchRig } from '../support/batch.js';

const TOKEN = 'tok-language-file-5b9c03e1d7a2f446';
const FIXTURE = join(import.meta.dirname, '..', 'fixtures', 'locales', 'eo.json');

let rig: BatchRig;
let sim: SimulatorHandle;
let root: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'geo-language-file-'));
  rig = await startBatchRig();
  sim = await startSimulator({ projectCount: 4, tokens: [TOKEN], clock: () => new Date('2026-11-04T06:00:00Z') });
}, 60_000);

afterAll(async () => {
  await rig.close();
  await sim.close();
  await rm(root, { recursive: true, force: true });
});

describe('a language added by one file', () => {
  it('renders a report in a language of the template folder alone, English underneath', async () => {
    expect(LANGUAGES).not.toContain('eo');
    const folder = join(root, 'templates');
    await mkdir(join(folder, 'locales'), { recursive: true });
    await copyFile(FIXTURE, join(folder, 'locales', 'eo.json'));
    const templates = await loadTemplates({ agencyDir: folder });
    // template check names the keys the new language lacks: its reports show them in English.
    expect(templates.warnings.map((w) => w.message).join('\n')).toMatch(/phrases of en\.json missing for "eo"/);
    const id = sim.state.projects().find((p) => p.status === 'active')?.id as number;
    const config = ConfigSchema.parse({ report: { templates: folder }, clients: { [String(id)]: { language: 'eo' } } });
    const out = join(root, 'out');
    const result = await rig.run({
      baseUrl: sim.url,
      tokens: [TOKEN],
      period: toMonth('2026-10'),
      outDir: out,
      config,
      renderer: await createHtmlRenderer({ templates }),
      selection: { statuses: ['active'], projectIds: [id] },
    });
    expect(result.summary).toMatchObject({ done: 1, failed: 0 });
    const manifest = Manifest.parse(JSON.parse(await readFile(join(out, '2026-10', 'manifest.json'), 'utf8')));
    const entry = manifest.projects[0];
    expect(entry?.language).toBe('eo');
    const html = await readFile(join(out, '2026-10', entry?.files.html as string), 'utf8');
    expect(html).toMatch(/<html lang="eo">/);
    expect(html).toContain('Raporto pri GEO kaj SEO');
    expect(html).toContain('>Resumo<');
    // A key the file lacks is English, never the key itself.
    expect(html).toContain('What AI assistants answer');
    expect(html).not.toMatch(/>\s*aiAnswers\.title\s*</);
  }, 240_000);
});
