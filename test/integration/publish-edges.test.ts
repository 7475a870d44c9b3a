// `publish` at its edges, on small period folders written by the test (real files in a temp folder, the real
// templates): --prune and keepMonths, the only removals besides a rotation; a prune refused on a partial account; a
// link inside the site never followed; one publish at a time per site; a mail never given an address about to be
// revoked; the report's page sealed even without a <head>; a secret in the config refused with the right fix.
import { createHash } from 'node:crypto';
import { lstat, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { brandingFrom } from '../../src/config/branding.js';
import { ConfigSchema } from '../../src/config/schema.js';
import { clientPath, linkToken, pageUrlForPeriod, readLinksRecord } from '../../src/output/links.js';
import type { Manifest, ProjectEntry } from '../../src/output/store.js';
import { createHtmlRenderer, type HtmlRenderer } from '../../src/render/html.js';
import { policyMeta } from '../../src/render/page-check.js';
import { publishSite, sealReportHtml, type PublishOptions, type PublishSummary } from '../../src/site/publish.js';
import { runCli, spawnCli } from '../support/cli.js';
import { doneEntry } from '../support/manifest.js';
import { waitFor } from '../support/wait.js';
import { toMonth } from '../../src/period.js';

const SECRET = 'edges-suite-secret-5d2a9c7e1b3f8a6d4c0e2b9f';
const SLOW_RENAMES = new URL('../support/slow-renames.mjs', import.meta.url).href;
const LINKS_ENOSPC = new URL('../support/links-record-enospc.mjs', import.meta.url).href;
const config = ConfigSchema.parse({ agency: { name: 'Northwind Digital' } });

let root: string;
let renderer: HtmlRenderer;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'geo-publish-edges-'));
  renderer = await createHtmlRenderer();
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

/** A period folder with a done report for each id: small files, each its own bytes. */
async function writePeriod(out: string, period: string, ids: number[], manifest: Partial<Manifest> = {}): Promise<void> {
  const dir = join(out, period);
  const projects: ProjectEntry[] = [];
  for (const id of ids) {
    const entry = { ...doneEntry(id), language: 'en' as const, seo: 40, seoChange: null, updatedAt: `${period}-28T06:00:00.000Z` };
    await mkdir(join(dir, entry.slug), { recursive: true });
    await writeFile(
      join(dir, entry.slug, 'report.html'),
      `<!doctype html><html><head><title>${id} ${period}</title></head><body>Report ${id} ${period}</body></html>`,
    );
    await writeFile(join(dir, entry.slug, 'report.pdf'), `%PDF-1.7 report ${id} ${period}\n%%EOF\n`);
    await writeFile(join(dir, entry.slug, 'data.json'), '{}');
    projects.push(entry);
  }
  const at = `${period}-28T06:00:00.000Z`;
  await writeFile(
    join(dir, 'manifest.json'),
    JSON.stringify({ period, status: 'complete', startedAt: at, updatedAt: at, runs: 1, projects, requests: { total: 0, byToken: {} }, ...manifest }),
  );
}

async function publish(out: string, options: Partial<PublishOptions> = {}): Promise<PublishSummary> {
  return publishSite({
    outDir: out,
    siteDir: join(out, 'site'),
    secret: SECRET,
    baseUrl: 'https://reports.northwind.example',
    prune: false,
    dryRun: false,
    keepMonths: 13,
    config,
    branding: await brandingFrom(config),
    renderer,
    ...options,
  });
}

const folderOf = (id: number, generation = 0): string => clientPath(linkToken(SECRET, id, generation)).slice(0, -1);

async function exists(path: string): Promise<boolean> {
  return lstat(path).then(
    () => true,
    () => false,
  );
}

async function fresh(name: string): Promise<string> {
  const out = join(root, name);
  await mkdir(out);
  return out;
}

describe('removals: --prune and keepMonths', () => {
  it('--prune removes the page of a client gone from the account, and its address stays dead when it comes back', async () => {
    const out = await fresh('prune');
    await writePeriod(out, '2026-09', [1, 2, 3]);
    expect((await publish(out)).clients).toBe(3);
    await writePeriod(out, '2026-10', [1, 2]);
    const kept = await publish(out);
    // Without --prune, nothing goes: client 3 keeps its page and its September report.
    expect([kept.clients, kept.removed]).toEqual([3, 0]);
    expect(await exists(join(out, 'site', folderOf(3), 'index.html'))).toBe(true);
    const pruned = await publish(out, { prune: true });
    expect([pruned.clients, pruned.removed]).toEqual([2, 4]);
    expect(await exists(join(out, 'site', folderOf(3)))).toBe(false);
    expect(await exists(join(out, 'site', folderOf(1), '2026-09', 'report.pdf'))).toBe(true);
    // Back in November: a new address, never the pruned one.
    await writePeriod(out, '2026-11', [1, 2, 3]);
    await publish(out);
    expect(await exists(join(out, 'site', folderOf(3, 1), 'index.html'))).toBe(true);
    expect(await exists(join(out, 'site', folderOf(3, 0)))).toBe(false);
  });

  it('refuses --prune when the newest period is one shard’s output or not complete, and removes nothing', async () => {
    const out = await fresh('prune-partial');
    await writePeriod(out, '2026-09', [1, 2, 3, 4]);
    await publish(out);
    await writePeriod(out, '2026-10', [1], { shard: '1/4' });
    await expect(publish(out, { prune: true })).rejects.toThrow(/output of shard 1\/4 alone/);
    await writePeriod(out, '2026-10', [1, 2], { status: 'quota_exhausted' });
    await expect(publish(out, { prune: true })).rejects.toThrow(/not complete \(quota_exhausted\)/);
    for (const id of [1, 2, 3, 4]) expect(await exists(join(out, 'site', folderOf(id), 'index.html'))).toBe(true);
    expect(Object.values((await readLinksRecord(out))?.clients ?? {}).map((c) => c.generation)).toEqual([0, 0, 0, 0]);
  });

  it('keeps site.keepMonths months on each page: the older month leaves the page, then its files go', async () => {
    const out = await fresh('keep');
    for (const period of ['2026-08', '2026-09', '2026-10']) await writePeriod(out, period, [7]);
    await publish(out);
    await writePeriod(out, '2026-11', [7]);
    const summary = await publish(out, { keepMonths: 3 });
    expect(summary.removed).toBe(3); // its report.html, report.pdf and the folder's page
    const page = await readFile(join(out, 'site', folderOf(7), 'index.html'), 'utf8');
    expect(page).not.toContain('2026-08/report');
    expect(page).toContain('2026-11/report.pdf');
    expect((await readdir(join(out, 'site', folderOf(7)))).sort()).toEqual(['2026-09', '2026-10', '2026-11', 'index.html']);
  });
});

describe('the site folder is publish’s own', () => {
  it('writes and removes nothing through a link inside the site (one restored from git, say)', async () => {
    const out = await fresh('symlink');
    await writePeriod(out, '2026-10', [1, 2]);
    await publish(out);
    const outside = join(root, 'outside');
    await mkdir(join(outside, 'important'), { recursive: true });
    await writeFile(join(outside, 'important', 'keep.txt'), 'mine');
    const clients = join(out, 'site', 'c');
    await rm(clients, { recursive: true });
    await symlink(outside, clients);
    await expect(publish(out, { prune: true })).rejects.toThrow(
      /publish follows no symbolic link, and this one is where it reads or writes: .*site\/c\. Nothing was written\./,
    );
    expect(await readdir(outside)).toEqual(['important']);
    expect(await readFile(join(outside, 'important', 'keep.txt'), 'utf8')).toBe('mine');
  });

  it('lets one publish at a time write a site: a second one, from another output folder, is refused while the first runs', async () => {
    const first = await fresh('lock-a');
    const second = await fresh('lock-b');
    // Enough clients that the first is surely still writing (150 ms a rename) once a second process is up: six were
    // all written before it, and the second then met a site with no record rather than the lock.
    const many = Array.from({ length: 40 }, (_, i) => i + 1);
    await writePeriod(first, '2026-10', many);
    await writePeriod(second, '2026-10', [9]);
    const site = join(root, 'shared-site');
    const env = { ...process.env, GEO_REPORTS_LINK_SECRET: SECRET };
    const running = spawnCli(['publish', '--out', first, '--site', site, '--json'], { env, cwd: root, nodeArgs: ['--import', SLOW_RENAMES] });
    await waitFor('the first publish writing', () => running.lines.some((line) => line.includes('"site-written"')), { timeoutMs: 60_000 });
    const refused = await runCli(['publish', '--out', second, '--site', site, '--json'], { env, cwd: root, timeoutMs: 60_000 });
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/Another run \(process \d+\) is writing/);
    const done = await running.done;
    expect(done.code).toBe(0);
    expect(await exists(join(site, '.run.lock'))).toBe(false);
    expect((await readdir(join(site, 'c'))).filter((name) => name !== 'index.html').length).toBe(many.length);
  });
});

describe('a full disk', () => {
  it('that keeps the links record from being saved after the pages: exit 2 naming it and the fix, no stack; the next publish records them', async () => {
    const out = await fresh('enospc');
    await writePeriod(out, '2026-10', [1, 2]);
    const env = { ...process.env, GEO_REPORTS_LINK_SECRET: SECRET };
    const result = await runCli(['publish', '--out', out], { env, cwd: root, nodeArgs: ['--import', LINKS_ENOSPC], timeoutMs: 60_000 });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`Cannot write the links record ${join(out, 'links.json')}`);
    expect(result.stderr).toContain('Free room on that disk');
    expect(result.stderr).not.toMatch(/^\s+at /m);
    expect(result.stderr).not.toContain('Unexpected error');
    // The pages were written before the record's last save failed, and they work.
    for (const id of [1, 2]) expect(await exists(join(out, 'site', folderOf(id), 'index.html'))).toBe(true);
    // Room again: the next publish records the site and leaves nothing half-done.
    const again = await runCli(['publish', '--out', out, '--json'], { env, cwd: root, timeoutMs: 60_000 });
    expect(again.code, again.stderr).toBe(0);
    // The same addresses: the pages on the site were already right, nothing of a client is written again.
    expect(again.stdout).not.toContain('"client-published"');
    expect(Object.keys((await readLinksRecord(out))?.clients ?? {})).toEqual(['1', '2']);
    expect((await readdir(out)).filter((name) => name.includes('links.json') && name !== 'links.json')).toEqual([]);
  });
});

describe('the address in a mail', () => {
  it('is never the one a rotation is about to revoke', async () => {
    const out = await fresh('rotate-mail');
    await writePeriod(out, '2026-10', [5]);
    await publish(out);
    const lookup = async () =>
      pageUrlForPeriod({
        record: await readLinksRecord(out),
        secret: SECRET,
        baseUrl: 'https://reports.northwind.example',
        siteDir: join(out, 'site'),
        projectId: 5,
        period: toMonth('2026-10'),
      });
    expect(await lookup()).toBe(`https://reports.northwind.example/${folderOf(5)}/`);
    const rotated = await runCli(['links', 'rotate', '5', '--out', out], { env: { ...process.env, GEO_REPORTS_LINK_SECRET: SECRET }, cwd: root });
    expect(rotated.code, rotated.stderr).toBe(0);
    await expect(lookup()).rejects.toThrow(/new address \(links rotate\) that is not published yet/);
    await publish(out);
    expect(await lookup()).toBe(`https://reports.northwind.example/${folderOf(5, 1)}/`);
    // A report missing from the site: the error names the site folder and the project, never the page's token.
    await rm(join(out, 'site', folderOf(5, 1), '2026-10', 'report.html'));
    const error = (await lookup().catch((e: unknown) => e)) as Error;
    expect(error.message).toContain('project 5');
    expect(error.message).not.toContain(linkToken(SECRET, 5, 1));
  });
});

describe('publish follows no symbolic link', () => {
  it('a report.pdf linked to any file in a period folder stops publish with exit 2 naming it, before anything is written', async () => {
    const out = await fresh('link-pdf');
    await writePeriod(out, '2026-10', [1, 2]);
    const pdf = join(out, '2026-10', doneEntry(2).slug, 'report.pdf');
    await writeFile(join(root, 'private.txt'), 'not for the site');
    await rm(pdf);
    await symlink(join(root, 'private.txt'), pdf);
    const result = await runCli(['publish', '--out', out, '--site', join(out, 'site')], { env: { ...process.env, GEO_REPORTS_LINK_SECRET: SECRET }, cwd: out });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`publish follows no symbolic link, and this one is where it reads or writes: ${pdf}. Nothing was written.`);
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(await exists(join(out, 'site'))).toBe(false);
    expect(await exists(join(out, 'links.json'))).toBe(false);
    // A period folder that is itself a link, too.
    await rm(pdf);
    await writeFile(pdf, '%PDF-1.7\n%%EOF\n');
    await mkdir(join(root, 'elsewhere'), { recursive: true });
    await symlink(join(root, 'elsewhere'), join(out, '2026-11'));
    await writeFile(
      join(root, 'elsewhere', 'manifest.json'),
      JSON.stringify({
        period: '2026-11',
        status: 'complete',
        startedAt: '2026-11-28T06:00:00.000Z',
        updatedAt: '2026-11-28T06:00:00.000Z',
        runs: 1,
        projects: [],
        requests: { total: 0, byToken: {} },
      }),
    );
    await expect(publish(out)).rejects.toThrow(`is where it reads or writes: ${join(out, '2026-11')}.`);
    expect(await exists(join(out, 'site'))).toBe(false);
  });

  it('a link in the site, even one of the size of the file it stands for, is refused, never kept or written through', async () => {
    const out = await fresh('link-site');
    await writePeriod(out, '2026-10', [1]);
    await publish(out);
    const pdf = join(out, 'site', folderOf(1), '2026-10', 'report.pdf');
    const same = join(root, 'same-size.pdf');
    await writeFile(same, 'x'.repeat((await readFile(pdf)).length));
    await rm(pdf);
    await symlink(same, pdf);
    await expect(publish(out)).rejects.toThrow(`is where it reads or writes: ${pdf}.`);
    expect((await lstat(pdf)).isSymbolicLink()).toBe(true);
    expect(await readFile(same, 'utf8')).toMatch(/^x+$/);
  });

  it('c/ and every folder of the site hold a page, so that no static host lists what is in them', async () => {
    const out = await fresh('folder-pages');
    await writePeriod(out, '2026-09', [1, 2]);
    await writePeriod(out, '2026-10', [1, 2]);
    await publish(out);
    const site = join(out, 'site');
    const folders = [
      site,
      ...(await readdir(site, { recursive: true, withFileTypes: true })).filter((e) => e.isDirectory()).map((e) => join(e.parentPath, e.name)),
    ];
    expect(folders.length).toBe(1 + 1 + 2 + 4); // the root, c/, two clients, two months each
    for (const folder of folders) expect(await exists(join(folder, 'index.html')), folder).toBe(true);
    expect(await readFile(join(site, 'c', 'index.html'), 'utf8')).toBe(await readFile(join(site, '404.html'), 'utf8'));
    const monthPage = await readFile(join(site, folderOf(1), '2026-10', 'index.html'), 'utf8');
    expect(monthPage).toContain(policyMeta());
    expect(monthPage).not.toContain('report.pdf');
    // Published again with nothing new: nothing written, and the pages of c/ are no client's folder.
    const again = await publish(out);
    expect(again.written).toBe(0);
    expect(again.clients).toBe(2);
  });
});

describe('pages the run checked', () => {
  /** The period of writePeriod with each client's report.html replaced, and its entry's checkedPage set as given. */
  async function withPages(out: string, pages: Record<number, { html: string; checkedPage?: string }>): Promise<void> {
    await writePeriod(out, '2026-10', Object.keys(pages).map(Number));
    const file = join(out, '2026-10', 'manifest.json');
    const manifest = JSON.parse(await readFile(file, 'utf8')) as Manifest;
    for (const entry of manifest.projects) {
      const page = pages[entry.id] as { html: string; checkedPage?: string };
      await writeFile(join(out, '2026-10', entry.slug, 'report.html'), page.html);
      if (page.checkedPage !== undefined) entry.checkedPage = page.checkedPage;
    }
    await writeFile(file, JSON.stringify(manifest));
  }
  const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');
  const clean = (id: number): string => `<!doctype html><html><head><title>${id}</title></head><body>Report ${id}</body></html>`;
  // No run records such a page (its check refuses it before the file is written): a stand-in for any page whose
  // check would take time, to tell a page parsed again from one that was not.
  const withScript = '<!doctype html><html><head><title>3</title></head><body><script>alert(1)</script></body></html>';

  it('does not parse again the bytes the run checked, and checks a page changed since, or one no run recorded', async () => {
    const out = await fresh('checked-pages');
    await withPages(out, {
      1: { html: clean(1), checkedPage: sha256(clean(1)) },
      2: { html: `${clean(2)}<!-- edited by hand -->`, checkedPage: sha256(clean(2)) },
      3: { html: withScript, checkedPage: sha256(withScript) },
      4: { html: withScript, checkedPage: sha256(clean(4)) },
      5: { html: withScript },
    });
    const warnings: string[] = [];
    const summary = await publish(out, { onEvent: (event) => (event.type === 'warning' ? warnings.push(event.message) : undefined) });
    // Recorded as checked, byte for byte: published without a second parse (client 3 shows it was not parsed).
    const page = (id: number): Promise<string | null> => readFile(join(out, 'site', folderOf(id), '2026-10', 'report.html'), 'utf8').catch(() => null);
    expect(await page(1)).toContain('Report 1');
    expect(await page(3)).toContain('<script>alert(1)</script>');
    // Changed since the run checked it: checked again, and published since it passes.
    expect(await page(2)).toContain('edited by hand');
    // Bytes the run did not record, or no record at all: checked, and refused.
    expect(await page(4)).toBeNull();
    expect(await page(5)).toBeNull();
    expect(warnings.filter((w) => w.includes('<script> is not allowed')).map((w) => /^Project (\d+)/.exec(w)?.[1])).toEqual(['4', '5']);
    expect(summary.clients).toBe(3);
  });
});

describe('small things', () => {
  it('seals a report page without a <head> after its doctype, and one with a head inside it', () => {
    const sealed = sealReportHtml(Buffer.from('<!DOCTYPE html>\n<html><body>x</body></html>')).toString();
    // A page of an earlier version gets the pages' policy as well; one that has it keeps its own.
    expect(sealed.startsWith(`<!DOCTYPE html>\n${policyMeta()}\n<meta name="robots" content="noindex, nofollow">`)).toBe(true);
    const withHead = sealReportHtml(Buffer.from(`<!doctype html><html lang="fr"><head>${policyMeta()}<title>t</title></head></html>`)).toString();
    expect(withHead).toMatch(
      /^<!doctype html><html lang="fr"><head>\n<meta name="robots" content="noindex, nofollow">\n<meta name="referrer" content="no-referrer"><meta http-equiv="Content-Security-Policy"[^>]*><title>/,
    );
    expect(() => sealReportHtml(Buffer.from('<!doctype html><p>x</p><svg><a href="javascript:alert(1)">y</a></svg>'))).toThrow(
      /The report page is not written: line 1, column 32 of the page: href="javascript:alert\(1\)" on <a> is not allowed/,
    );
  });

  it('links uses the address publish was given: no --base-url asked twice', async () => {
    const out = await fresh('remembered-base');
    await writePeriod(out, '2026-10', [1]);
    const env = { ...process.env, GEO_REPORTS_LINK_SECRET: SECRET };
    const published = await runCli(['publish', '--out', out, '--base-url', 'https://reports.agency.example/clients'], { env, cwd: out });
    expect(published.code, published.stderr).toBe(0);
    const listed = await runCli(['links', '--out', out, '--json'], { env, cwd: out });
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toContain(`https://reports.agency.example/clients/${folderOf(1)}/`);
    // A publish without an address keeps the one remembered.
    await publish(out, { baseUrl: null });
    expect((await readLinksRecord(out))?.baseUrl).toBe('https://reports.agency.example/clients');
  });

  it('writes .nojekyll at the root, so that GitHub Pages serves a folder whose token starts with "_"', async () => {
    const out = await fresh('nojekyll');
    await writePeriod(out, '2026-10', [1]);
    await publish(out);
    expect(await readFile(join(out, 'site', '.nojekyll'), 'utf8')).toBe('');
  });

  it('refuses a link secret written into the config file, pointing at GEO_REPORTS_LINK_SECRET', async () => {
    const file = join(root, 'with-secret.json');
    await writeFile(file, JSON.stringify({ site: { baseUrl: 'https://reports.northwind.example', secret: 'do-not-put-me-here-0123456789abcdef' } }));
    const result = await runCli(['links', '--config', file, '--out', root], { env: { ...process.env, GEO_REPORTS_LINK_SECRET: SECRET }, cwd: root });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('GEO_REPORTS_LINK_SECRET');
    expect(result.stderr).not.toContain('do-not-put-me-here');
  });
});
