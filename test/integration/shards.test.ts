// Two machines, one period: the real CLI runs shard 1/2 and 2/2 with different tokens against the simulator,
// then `merge` combines them into one period folder. Real Chromium, real PDFs, real files in a temp folder.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cp, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shardOfProject } from '../../src/batch/shard.js';
import { Manifest } from '../../src/output/store.js';
import { startSimulator, type SimulatorHandle } from '../../src/simulator/server.js';
import { runCli, type CliResult } from '../support/cli.js';

const exec = promisify(execFile);
const PERIOD = '2026-10';
const TOKEN_1 = 'tok-shard-one-7a1c9e3b5d2f1111';
const TOKEN_2 = 'tok-shard-two-0b8d6f4a2c9e2222';

let sim: SimulatorHandle;
let root: string;
let activeIds: number[];

const cli = (args: string[], token = TOKEN_1): Promise<CliResult> =>
  runCli(args, { cwd: root, env: { ...process.env, AGENCY_API_TOKEN: token }, timeoutMs: 300_000 });

const runShard = (shard: string, out: string, token: string, extra: string[] = []) =>
  cli(['run', '--period', PERIOD, '--shard', shard, '--out', out, '--base-url', sim.url, '--json', ...extra], token);

const merge = (out: string, ...sources: string[]) => cli(['merge', '--period', PERIOD, '--out', out, ...sources]);

async function manifestOf(out: string): Promise<Manifest> {
  return Manifest.parse(JSON.parse(await readFile(join(root, out, PERIOD, 'manifest.json'), 'utf8')));
}

/** Every file under a folder: relative path → sha256 and modification time. */
async function snapshot(dir: string): Promise<Record<string, { sha: string; mtimeMs: number }>> {
  const result: Record<string, { sha: string; mtimeMs: number }> = {};
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    result[path.slice(dir.length + 1)] = {
      sha: createHash('sha256')
        .update(await readFile(path))
        .digest('hex'),
      mtimeMs: (await stat(path)).mtimeMs,
    };
  }
  return result;
}

const escapeHtml = (text: string): string =>
  text.replace(/[&<>"'`=]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#x27;', '`': '&#x60;', '=': '&#x3D;' })[c] as string);

const requestCount = (): number => sim.state.requests.length;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'geo-shards-'));
  sim = await startSimulator({ projectCount: 14, tokens: [TOKEN_1, TOKEN_2], clock: () => new Date('2026-11-04T06:00:00Z') });
  activeIds = sim.state
    .projects()
    .filter((p) => p.status === 'active')
    .map((p) => p.id)
    .sort((a, b) => a - b);
  // Two machines, one after the other here (the machine running the tests has two cores).
  const first = await runShard('1/2', 'shard-1', TOKEN_1);
  expect(first.stderr).toBe('');
  expect(first.code).toBe(0);
  const second = await runShard('2/2', 'shard-2', TOKEN_2);
  expect(second.stderr).toBe('');
  expect(second.code).toBe(0);
}, 240_000);

afterAll(async () => {
  await sim.close();
  await rm(root, { recursive: true, force: true });
});

describe('run --shard', () => {
  it('covers every selected project exactly once across the two shards, each with its own manifest', async () => {
    const [one, two] = [await manifestOf('shard-1'), await manifestOf('shard-2')];
    expect(one.shard).toBe('1/2');
    expect(two.shard).toBe('2/2');
    expect(one.status).toBe('complete');
    expect(two.status).toBe('complete');
    const idsOne = one.projects.map((p) => p.id);
    const idsTwo = two.projects.map((p) => p.id);
    expect(idsOne.length).toBeGreaterThan(0);
    expect(idsTwo.length).toBeGreaterThan(0);
    expect(idsOne.filter((id) => idsTwo.includes(id))).toEqual([]);
    expect([...idsOne, ...idsTwo].sort((a, b) => a - b)).toEqual(activeIds);
    for (const entry of one.projects) expect([entry.status, shardOfProject(entry.id, 2)]).toEqual(['done', 1]);
    for (const entry of two.projects) expect([entry.status, shardOfProject(entry.id, 2)]).toEqual(['done', 2]);
  });

  it("asks each project's report with the token of its own machine", async () => {
    const posts = sim.state.requests.filter((r) => r.endpoint === 'reports.php' && r.method === 'POST');
    expect(posts).toHaveLength(activeIds.length);
    for (const post of posts) {
      const projectId = (post.body as { project_id: number }).project_id;
      expect(post.tokenIndex, `project ${projectId}`).toBe(shardOfProject(projectId, 2) - 1);
    }
    const [one, two] = [await manifestOf('shard-1'), await manifestOf('shard-2')];
    expect(Object.keys(one.requests.byToken)).toEqual(['token#1 (…1111)']);
    expect(Object.keys(two.requests.byToken)).toEqual(['token#1 (…2222)']);
  });

  it('refuses a wrong --shard, and a shard writing into another shard’s folder, before any request', async () => {
    const before = requestCount();
    const zero = await runShard('0/2', 'shard-x', TOKEN_1);
    expect(zero.code).toBe(2);
    expect(zero.stderr).toContain('--shard 0/2: K must be between 1 and 2');
    const mixed = await runShard('2/2', 'shard-1', TOKEN_2);
    expect(mixed.code).toBe(2);
    expect(mixed.stderr).toContain("holds shard 1/2's manifest; this run is shard 2/2");
    expect(mixed.stderr).toContain('own --out folder');
    expect(requestCount()).toBe(before);
  });
});

describe('merge', () => {
  beforeAll(async () => {
    const merged = await merge('merged', 'shard-1', 'shard-2');
    expect(merged.stderr).toBe('');
    expect(merged.code).toBe(0);
  }, 60_000);

  it('gives one period folder whose manifest holds every project, requests summed per token, no shard', async () => {
    const [one, two, merged] = [await manifestOf('shard-1'), await manifestOf('shard-2'), await manifestOf('merged')];
    expect(merged.projects.map((p) => p.id)).toEqual(activeIds);
    expect(merged.projects.every((p) => p.status === 'done')).toBe(true);
    expect(merged.status).toBe('complete');
    expect(merged.shard).toBeUndefined();
    expect(merged.requests.total).toBe(one.requests.total + two.requests.total);
    expect(merged.requests.byToken).toEqual({ ...one.requests.byToken, ...two.requests.byToken });
    expect(merged.runs).toBe(2);
  });

  it('writes one agency index listing every client with links to its report', async () => {
    const merged = await manifestOf('merged');
    const index = await readFile(join(root, 'merged', PERIOD, 'index.html'), 'utf8');
    for (const entry of merged.projects) {
      expect(index).toContain(escapeHtml(entry.name));
      expect(index).toContain(`href="${entry.files.html}"`);
      expect(index).toContain(`href="${entry.files.pdf}"`);
    }
    // Totals of the whole period, not of one shard.
    expect(index).toMatch(new RegExp(`<span class="totals__value">${activeIds.length}</span> <span class="totals__label">`));
  });

  it('copies each report intact: the same bytes as its shard, and a PDF that opens', async () => {
    const merged = await manifestOf('merged');
    const [one, two] = [await manifestOf('shard-1'), await manifestOf('shard-2')];
    for (const entry of merged.projects) {
      const source = one.projects.some((p) => p.id === entry.id) ? 'shard-1' : 'shard-2';
      expect(two.projects.some((p) => p.id === entry.id)).toBe(source === 'shard-2');
      for (const file of [entry.files.data, entry.files.html, entry.files.pdf]) {
        expect(file).not.toBeNull();
        const [copy, original] = [await readFile(join(root, 'merged', PERIOD, file as string)), await readFile(join(root, source, PERIOD, file as string))];
        expect(copy.equals(original), file as string).toBe(true);
      }
      const { stdout: info } = await exec('pdfinfo', [join(root, 'merged', PERIOD, entry.files.pdf as string)]);
      expect(Number(/Pages:\s+(\d+)/.exec(info)?.[1])).toBeGreaterThan(0);
    }
    const anyPdf = join(root, 'merged', PERIOD, merged.projects[0]?.files.pdf as string);
    const { stdout: text } = await exec('pdftotext', [anyPdf, '-']);
    expect(text.replace(/\s+/g, ' ')).toContain(merged.projects[0]?.name.split(' ')[0] ?? '');
  });

  it('changes nothing when run again', async () => {
    const before = await snapshot(join(root, 'merged'));
    const again = await merge('merged', 'shard-1', 'shard-2');
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('Files written: 0');
    expect(await snapshot(join(root, 'merged'))).toEqual(before);
  });

  it('names the shards it combined, and keeps the mails recorded in the folder it merges into (a merge job run again)', async () => {
    await cp(join(root, 'merged'), join(root, 'merged-sent'), { recursive: true });
    const path = join(root, 'merged-sent', PERIOD, 'manifest.json');
    const sentOne = await manifestOf('merged-sent');
    expect(sentOne.shards).toEqual(['1/2', '2/2']);
    const first = sentOne.projects[0] as Manifest['projects'][number];
    first.deliveries = {
      email: { status: 'sent', messageId: '<sent-once@reports.example>', at: '2026-11-04T07:00:00Z', accepted: [], rejected: [], attempts: 1 },
    };
    await writeFile(path, JSON.stringify(sentOne, null, 2));
    const again = await merge('merged-sent', 'shard-1', 'shard-2');
    expect(again.code, again.stderr).toBe(0);
    const after = await manifestOf('merged-sent');
    expect(after.projects.find((p) => p.id === first.id)?.deliveries?.email?.messageId).toBe('<sent-once@reports.example>');
    expect(after.projects.filter((p) => p.deliveries !== undefined)).toHaveLength(1);
  });

  it('accepts the same content twice (a shard downloaded twice) and counts its requests once', async () => {
    await cp(join(root, 'shard-1'), join(root, 'shard-1-again'), { recursive: true });
    const result = await merge('merged-twice', 'shard-1', 'shard-1-again', 'shard-2');
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const [twice, once] = await Promise.all(['merged-twice', 'merged'].map((out) => readFile(join(root, out, PERIOD, 'manifest.json'), 'utf8')));
    expect(twice).toBe(once);
  });

  it('refuses two sources holding the same project with different content, naming both, and writes nothing', async () => {
    await cp(join(root, 'shard-1'), join(root, 'other-run'), { recursive: true });
    const entry = (await manifestOf('other-run')).projects[0] as Manifest['projects'][number];
    const dataPath = join(root, 'other-run', PERIOD, entry.files.data as string);
    const data = JSON.parse(await readFile(dataPath, 'utf8')) as { fetchedAt: string };
    data.fetchedAt = '2026-11-05T06:00:00.000Z';
    await writeFile(dataPath, JSON.stringify(data, null, 2));

    const result = await merge('merged-conflict', 'shard-1', 'other-run', 'shard-2');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`Project ${entry.id} (${entry.name}) is in shard-1 and in other-run with different content`);
    expect(result.stderr).toContain(entry.files.data as string);
    expect(result.stderr).toContain('nothing was written');
    await expect(stat(join(root, 'merged-conflict'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('takes a done report over the same project failed elsewhere, and keeps the period unfinished without it', async () => {
    // An earlier attempt of shard 2 in which one project failed.
    await cp(join(root, 'shard-2'), join(root, 'shard-2-failed'), { recursive: true });
    const manifest = await manifestOf('shard-2-failed');
    const failed = manifest.projects[0] as Manifest['projects'][number];
    await rm(join(root, 'shard-2-failed', PERIOD, failed.slug), { recursive: true });
    Object.assign(failed, { status: 'failed', error: 'The service failed to build report 1.', files: { html: null, pdf: null, data: null } });
    manifest.status = 'partial';
    await writeFile(join(root, 'shard-2-failed', PERIOD, 'manifest.json'), JSON.stringify(manifest, null, 2));

    const withDone = await merge('merged-retry', 'shard-2-failed', 'shard-1', 'shard-2');
    expect(withDone.code).toBe(0);
    const merged = await manifestOf('merged-retry');
    expect(merged.projects.find((p) => p.id === failed.id)?.status).toBe('done');
    expect(merged.status).toBe('complete');

    const withoutDone = await merge('merged-failed', 'shard-1', 'shard-2-failed');
    expect(withoutDone.code).toBe(0);
    const partial = await manifestOf('merged-failed');
    expect(partial.projects.find((p) => p.id === failed.id)).toMatchObject({ status: 'failed', files: { html: null, pdf: null, data: null } });
    expect(partial.status).toBe('partial');
    const index = await readFile(join(root, 'merged-failed', PERIOD, 'index.html'), 'utf8');
    expect(index).toContain('The service failed to build report 1.');
  });

  it('warns when a shard is missing, and leaves the period unfinished', async () => {
    const result = await merge('merged-half', 'shard-1');
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('No source holds shard 2/2');
    expect((await manifestOf('merged-half')).status).toBe('partial');
  });

  it('refuses a source without the period, naming it', async () => {
    const result = await merge('merged-none', 'shard-1', 'no-such-folder');
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`no-such-folder holds no ${PERIOD}/manifest.json`);
  });

  it('leaves a merged folder that a plain run resumes with one list request and nothing else', async () => {
    const refused = await runShard('1/2', 'merged', TOKEN_1);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('holds a run over every project; shard 1/2 cannot write into it');

    const before = requestCount();
    const rerun = await cli(['run', '--period', PERIOD, '--out', 'merged', '--base-url', sim.url, '--json'], TOKEN_1);
    expect(rerun.stderr).toBe('');
    expect(rerun.code).toBe(0);
    expect(rerun.stdout).not.toContain('"type":"project-done"');
    const sent = sim.state.requests.slice(before);
    expect(sent.map((r) => r.endpoint)).toEqual(['projects.php']);
  });
});
