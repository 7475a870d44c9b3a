// The preview's request handler called as a function, with no socket: the simulator's sample data, the built-in
// templates and a real temp folder for the renders. The answers (status, headers, body) are what the server writes;
// preview.test.ts runs the same routes through the CLI, a real socket and a browser.
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { brandingFrom } from '../../src/config/branding.js';
import { ConfigSchema } from '../../src/config/schema.js';
import { ConfigError } from '../../src/errors.js';
import { sampleData } from '../../src/preview/data.js';
import { PreviewHandler, type PreviewAnswer, type PreviewHandlerOptions, type PreviewReply, type PreviewRequest } from '../../src/preview/handler.js';
import type { PreviewSetup } from '../../src/preview/state.js';
import { createHtmlRenderer, PRINT_ASSETS_ORIGIN } from '../../src/render/html.js';
import { toMonth } from '../../src/period.js';

const PERIOD = toMonth('2026-10');
const PORT = 8790;
const clock = () => new Date('2026-11-04T06:00:00Z');
const data = sampleData(PERIOD, clock);
const firstProject = data.projects[0]?.id ?? 0;
let setup: PreviewSetup;
let workDir: string;
const handlers: PreviewHandler[] = [];

beforeAll(async () => {
  const config = ConfigSchema.parse({});
  setup = { config, renderer: await createHtmlRenderer(), branding: await brandingFrom(config) };
  workDir = await mkdtemp(join(tmpdir(), 'geo-preview-handler-'));
});
afterAll(async () => {
  await Promise.all(handlers.map((h) => h.close()));
  await rm(workDir, { recursive: true, force: true });
});

function makeHandler(options: Partial<PreviewHandlerOptions> = {}): { handler: PreviewHandler; logged: string[] } {
  const logged: string[] = [];
  const handler = new PreviewHandler({
    host: '127.0.0.1',
    data,
    setup,
    reload: () => Promise.resolve(setup),
    printer: () => Promise.reject(new Error('This test prints no PDF.')),
    templatesLabel: 'the built-in templates',
    workDir,
    clock,
    log: (line) => logged.push(line),
    ...options,
  });
  handlers.push(handler);
  return { handler, logged };
}

const get = (url: string, over: Partial<PreviewRequest> = {}): PreviewRequest => ({ method: 'GET', url, host: `127.0.0.1:${PORT}`, port: PORT, ...over });

function whole(answer: PreviewAnswer): PreviewReply {
  if ('events' in answer) throw new Error('expected a whole answer, got the event stream');
  return answer;
}
const bodyText = (answer: PreviewReply): string => (typeof answer.body === 'string' ? answer.body : answer.body.toString('utf8'));

describe('the report page', () => {
  it('is the rendered report with the bar after <body>, under the preview own policy and headers', async () => {
    const { handler } = makeHandler();
    const answer = whole(await handler.answer(get('/')));
    const html = bodyText(answer);
    expect(answer.status).toBe(200);
    expect(answer.headers).toMatchObject({
      'Content-Type': 'text/html; charset=utf-8',
      'Content-Length': String(Buffer.byteLength(html)),
      'Cache-Control': 'no-store',
      'X-Content-Type-Options': 'nosniff',
      'Referrer-Policy': 'no-referrer',
      'X-Frame-Options': 'DENY',
    });
    const nonce = /script-src 'nonce-([^']+)'/.exec(answer.headers['Content-Security-Policy'] ?? '')?.[1];
    expect(nonce).toMatch(/^[A-Za-z0-9+/]{22}==$/);
    expect(html).toContain(`<script nonce="${nonce}">`);
    expect(html).toMatch(/<body\b[^>]*><div id="geo-preview" data-version="1"/);
    expect(html).toContain(`<option value="${firstProject}" selected>`);
    expect(html).toContain('Templates: the built-in templates · data: sample, 2026-10 · version 1, 06:00:00 UTC');
    // The fonts come from /fonts/, and the page's own policy meta is gone: the header's policy is the one.
    expect(html).toContain('/fonts/');
    expect(html).not.toContain(PRINT_ASSETS_ORIGIN);
    expect(html).not.toMatch(/http-equiv="Content-Security-Policy"/i);
    // Each render's folder is removed once answered.
    expect(await readdir(workDir)).toEqual([]);
  });

  it('serves the fonts the page names from memory, and nothing else under /fonts/', async () => {
    const { handler } = makeHandler();
    const [url, asset] = [...setup.renderer.fonts.assets][0] ?? [];
    if (url === undefined || asset === undefined) throw new Error('the renderer has no font asset');
    const answer = whole(await handler.answer(get(`/fonts/${url.slice(PRINT_ASSETS_ORIGIN.length + 1)}`)));
    expect(answer.status).toBe(200);
    expect(answer.headers['Content-Type']).toBe(asset.contentType);
    expect(answer.headers['Cache-Control']).toBe('public, max-age=31536000, immutable');
    expect(Buffer.compare(answer.body as Buffer, Buffer.from(asset.body))).toBe(0);
    for (const path of ['/fonts/../package.json', '/fonts/', '/fonts/%2e%2e%2fpackage.json', '/package.json']) {
      const refused = whole(await handler.answer(get(path)));
      expect(refused.status, path).toBe(404);
      expect(bodyText(refused)).toBe('Not found. The preview has /, /report.pdf, /email and /events.\n');
    }
  });

  it('shows the mail in the language asked, with the bar pointing back at /email', async () => {
    const { handler } = makeHandler();
    const answer = whole(await handler.answer(get(`/email?project=${firstProject}&language=fr`)));
    const html = bodyText(answer);
    expect(answer.status).toBe(200);
    expect(html).toContain('<form method="get" action="/email"');
    expect(html).toContain('<option value="fr" selected>fr</option>');
    expect(html).toContain(`href="/report.pdf?project=${firstProject}&amp;language=fr"`);
  });
});

describe('requests refused', () => {
  it('by the Host they name, when the preview listens on loopback', async () => {
    const { handler } = makeHandler();
    for (const host of [`127.0.0.1:${PORT}`, `localhost:${PORT}`, `[::1]:${PORT}`, `LOCALHOST:${PORT}`]) {
      expect(whole(await handler.answer(get('/nowhere', { host }))).status, host).toBe(404);
    }
    for (const host of [`evil.example:${PORT}`, `127.0.0.1:${PORT + 1}`, '127.0.0.1', undefined]) {
      const answer = whole(await handler.answer(get('/', { host })));
      expect(answer.status, String(host)).toBe(403);
      expect(bodyText(answer)).toBe('This preview answers requests to its own address only.\n');
    }
  });

  it("by the Host they name on any other bind too: the address given, or for 0.0.0.0 this machine's names", async () => {
    const { handler: lan } = makeHandler({ host: '192.0.2.10' });
    expect(whole(await lan.answer(get('/nowhere', { host: `192.0.2.10:${PORT}` }))).status).toBe(404);
    expect(whole(await lan.answer(get('/', { host: `preview.example:${PORT}` }))).status).toBe(403);
    const { handler: every } = makeHandler({ host: '0.0.0.0', machineNames: () => ['studio-7', '192.0.2.20', 'fe80::1'] });
    for (const host of [`studio-7:${PORT}`, `192.0.2.20:${PORT}`, `[fe80::1]:${PORT}`, `127.0.0.1:${PORT}`]) {
      expect(whole(await every.answer(get('/nowhere', { host }))).status, host).toBe(404);
    }
    for (const host of [`evil.example:${PORT}`, `192.0.2.99:${PORT}`, `studio-7:${PORT + 1}`, undefined]) {
      expect(whole(await every.answer(get('/', { host }))).status, String(host)).toBe(403);
    }
  });

  it('by method, length and form, each with its status', async () => {
    const { handler } = makeHandler();
    const post = whole(await handler.answer(get('/', { method: 'POST' })));
    expect([post.status, post.headers['Allow'], bodyText(post)]).toEqual([405, 'GET, HEAD', 'Only GET.\n']);
    expect(whole(await handler.answer(get('/nowhere', { method: 'HEAD' }))).status).toBe(404);
    expect(whole(await handler.answer(get(`/?project=${'1'.repeat(2100)}`))).status).toBe(414);
    expect(whole(await handler.answer(get('//[')))).toMatchObject({ status: 400, body: 'Bad request.\n' });
  });

  it('by what the query asks: an error page with the bar, in place of the report', async () => {
    const { handler } = makeHandler();
    const cases: Array<[string, number, string]> = [
      ['/?project=abc', 400, '"project" must be a project id (a whole number), not "abc".'],
      ['/?project=999999', 404, `Project 999999 is not in ${data.description}.`],
      ['/?language=xx', 400, '"language" must be one of en, fr, de, es, it, nl, pt, not "xx".'],
    ];
    for (const [url, status, message] of cases) {
      const answer = whole(await handler.answer(get(url)));
      expect(answer.status, url).toBe(status);
      expect(answer.headers['Content-Security-Policy']).toMatch(/script-src 'nonce-/);
      expect(bodyText(answer)).toContain('<div id="geo-preview"');
      expect(bodyText(answer)).toContain(`Not shown:\n\n${message.replaceAll('"', '&quot;')}`);
    }
    const pdf = whole(await handler.answer(get('/report.pdf?project=abc')));
    expect([pdf.status, pdf.headers['Content-Type'], bodyText(pdf)]).toEqual([
      400,
      'text/plain; charset=utf-8',
      '"project" must be a project id (a whole number), not "abc".\n',
    ]);
  });

  it('a preview with no project says so', async () => {
    const { handler } = makeHandler({ data: { ...data, projects: [] } });
    const answer = whole(await handler.answer(get('/')));
    expect(answer.status).toBe(404);
    expect(bodyText(answer)).toContain(`No project in ${data.description}.`);
  });
});

describe('reloads', () => {
  it('/events is the event stream, opened on the connection', async () => {
    const { handler } = makeHandler();
    expect(await handler.answer(get('/events'))).toEqual({ status: 200, events: true });
  });

  it('count a version each, show a broken setup as its error, and the report again once fixed', async () => {
    let broken = true;
    const { handler, logged } = makeHandler({
      reload: () =>
        broken ? Promise.reject(new ConfigError('The config has an unknown key "brandng".', { hint: 'Write "branding".' })) : Promise.resolve(setup),
    });
    await handler.state.reload('config.yaml changed');
    expect(handler.state.version).toBe(2);
    expect(logged).toEqual([
      'Reloaded (config.yaml changed), but the report cannot be rendered:\nThe config has an unknown key "brandng".\nFix: Write "branding".',
    ]);
    const page = whole(await handler.answer(get('/')));
    expect(page.status).toBe(500);
    expect(bodyText(page)).toContain('data-version="2"');
    expect(bodyText(page)).toContain('The report cannot be rendered:\n\nThe config has an unknown key &quot;brandng&quot;.\nFix: Write &quot;branding&quot;.');
    const pdf = whole(await handler.answer(get('/report.pdf')));
    expect([pdf.status, bodyText(pdf)]).toEqual([500, 'The config has an unknown key "brandng".\nFix: Write "branding".\n']);
    // No setup, no fonts.
    const [fontUrl] = [...setup.renderer.fonts.assets.keys()];
    expect(whole(await handler.answer(get(`/fonts/${(fontUrl ?? '').slice(PRINT_ASSETS_ORIGIN.length + 1)}`))).status).toBe(404);

    broken = false;
    await handler.state.reload('config.yaml changed');
    expect(handler.state.version).toBe(3);
    expect(logged.at(-1)).toBe('Reloaded (config.yaml changed).');
    const fixed = whole(await handler.answer(get('/')));
    expect(fixed.status).toBe(200);
    expect(bodyText(fixed)).toContain('data-version="3"');
  });

  it('run one at a time, in the order asked: the last change wins', async () => {
    const made: string[] = [];
    let release: () => void = () => undefined;
    const firstHeld = new Promise<void>((resolve) => {
      release = resolve;
    });
    let calls = 0;
    const { handler, logged } = makeHandler({
      reload: async () => {
        calls += 1;
        const call = calls;
        if (call === 1) await firstHeld;
        made.push(`setup ${call}`);
        return setup;
      },
    });
    const first = handler.state.reload('a.hbs changed');
    const second = handler.state.reload('b.hbs changed');
    await Promise.resolve();
    expect(calls).toBe(1);
    release();
    await Promise.all([first, second]);
    expect(made).toEqual(['setup 1', 'setup 2']);
    expect(logged).toEqual(['Reloaded (a.hbs changed).', 'Reloaded (b.hbs changed).']);
    expect(handler.state.version).toBe(3);
  });
});
