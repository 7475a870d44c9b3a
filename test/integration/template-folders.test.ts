// Agency template folders over the built-in templates: the lookup order, the additions (extra.css, partial locale
// files, new partials, inlined images), and every problem the set is checked for, each with its file and line.
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { ConfigError } from '../../src/errors.js';
import { createHtmlRenderer } from '../../src/render/html.js';
import {
  BUILT_IN_TEMPLATES_DIR,
  formatProblem,
  loadTemplates,
  MAX_INLINE_BYTES,
  TemplateError,
  type TemplateProblem,
} from '../../src/render/template-check/load.js';
import { reportModel, indexModel } from '../fixtures/report-model.js';
import { keywords } from '../../src/sections/keywords/index.js';
import { loadPhrases } from '../../src/i18n/locales.js';

let root: string;
let count = 0;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'geo-templates-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

/** A template folder holding these files (path inside it → text or bytes). */
async function folder(files: Record<string, string | Buffer>): Promise<string> {
  count += 1;
  const dir = join(root, `t${count}`);
  await mkdir(dir, { recursive: true });
  for (const [name, content] of Object.entries(files)) {
    await mkdir(dirname(join(dir, name)), { recursive: true });
    await writeFile(join(dir, name), content);
  }
  return dir;
}

/** The problems of a folder: those of the TemplateError it throws, or its warnings. */
async function problemsOf(dir: string): Promise<TemplateProblem[]> {
  try {
    return [...(await loadTemplates({ agencyDir: dir })).warnings];
  } catch (error) {
    if (error instanceof TemplateError) return [...error.problems];
    throw error;
  }
}

async function rendererOf(dir: string) {
  return createHtmlRenderer({ templates: await loadTemplates({ agencyDir: dir }) });
}

const builtIn = (name: string): Promise<string> => readFile(join(BUILT_IN_TEMPLATES_DIR, name), 'utf8');

describe('layered lookup', () => {
  it('a folder with one partial changes that part only; every other built-in template still renders', async () => {
    const summary = (await builtIn('partials/summary.hbs')).replace(
      '<h2 id="summary-title">',
      '<p class="agency-line">Prepared with care by our team.</p>\n  <h2 id="summary-title">',
    );
    const dir = await folder({ 'partials/summary.hbs': summary });
    const html = (await rendererOf(dir)).renderReport(reportModel('en'));
    const plain = (await createHtmlRenderer()).renderReport(reportModel('en'));
    expect(html).toContain('<p class="agency-line">Prepared with care by our team.</p>');
    // Apart from the added line, the page is the built-in one.
    expect(html.replace('<p class="agency-line">Prepared with care by our team.</p>\n  ', '')).toBe(plain);
  });

  it('report.hbs of the folder replaces the built-in one, and a partial of its own is called by its name', async () => {
    const report = (await builtIn('report.hbs')).replace('{{> cover}}', '{{> cover}}\n{{> about-us}}');
    const dir = await folder({ 'report.hbs': report, 'partials/about-us.hbs': '<section class="about"><h2>About {{branding.agencyName}}</h2></section>' });
    const html = (await rendererOf(dir)).renderReport(reportModel('en'));
    expect(html).toContain('<section class="about"><h2>About Lumen &amp; Co Digital</h2></section>');
    expect(html.indexOf('class="about"')).toBeLessThan(html.indexOf('section--summary'));
  });

  it('assets/extra.css comes after the built-in styles; without it the styles are the built-in ones', async () => {
    const dir = await folder({ 'assets/extra.css': '.score-card { background: #fef3c7; }\n', 'assets/extra-index.css': '.clients { font-size: 9pt; }\n' });
    const prepared = await loadTemplates({ agencyDir: dir });
    const builtInCss = `${await builtIn('assets/common.css')}\n${await builtIn('assets/report.css')}`;
    expect(prepared.css.report).toBe(`${builtInCss}\n.score-card { background: #fef3c7; }\n`);
    expect(prepared.css.index.endsWith('.clients { font-size: 9pt; }\n')).toBe(true);
    expect((await loadTemplates()).css.report).toBe(builtInCss);
    const html = (await createHtmlRenderer({ templates: prepared })).renderReport(reportModel('en'));
    expect(html.indexOf('.score-card { background: #fef3c7; }')).toBeGreaterThan(html.indexOf('.score-card__help'));
  });

  it('a locale file of the folder holds only the keys it changes: the built-in file of its language underneath, then English', async () => {
    const dir = await folder({
      'locales/en.json': JSON.stringify({ 'summary.title': 'At a glance', 'about.title': 'About us' }),
      'locales/fr.json': JSON.stringify({ 'scores.title': 'Vos scores' }),
    });
    const { locales } = await loadTemplates({ agencyDir: dir });
    expect(locales.phrases('en')['summary.title']).toBe('At a glance');
    expect(locales.phrases('en')['recs.title']).toBe('Recommendations');
    expect(locales.phrases('fr')['scores.title']).toBe('Vos scores');
    // French keeps its own built-in words where the agency changed only the English ones…
    expect(locales.phrases('fr')['summary.title']).toBe('Synthèse');
    // …and a key the agency added in English only is English in a French report.
    expect(locales.phrases('fr')['about.title']).toBe('About us');
    const html = (await createHtmlRenderer({ templates: await loadTemplates({ agencyDir: dir }) })).renderReport(reportModel('en'));
    expect(html).toContain('>At a glance</h2>');
  });

  it('images the folder references are inlined, from the folder or relative to the stylesheet', async () => {
    const png = Buffer.from(
      '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8ffff3f0005fe02fea7d6a4c50000000049454e44ae426082',
      'hex',
    );
    const dir = await folder({
      'images/team.png': png,
      'partials/summary.hbs': '<section class="section--summary"><img src="images/team.png" alt="Team"></section>',
      'assets/extra.css': '.cover { background-image: url("../images/team.png"); }\n',
    });
    const html = (await rendererOf(dir)).renderReport(reportModel('en'));
    const uri = `data:image/png;base64,${png.toString('base64')}`;
    expect(html).toContain(`<img src="${uri}" alt="Team">`);
    expect(html).toContain(`background-image: url("${uri}")`);
    expect(html).not.toContain('images/team.png');
  });

  it('the index is layered the same way', async () => {
    const index = (await builtIn('index.hbs')).replace('<main>', '<main>\n<p class="agency-index-note">Internal: do not forward.</p>');
    const dir = await folder({ 'index.hbs': index });
    expect((await rendererOf(dir)).renderIndex(indexModel('en'))).toContain('<p class="agency-index-note">Internal: do not forward.</p>');
  });

  it('the built-in set has no problem of its own', async () => {
    expect((await loadTemplates()).warnings).toEqual([]);
    expect(await problemsOf(await folder({}))).toEqual([]);
  });
});

describe('errors found before anything is rendered (file, line and column)', () => {
  const firstError = async (files: Record<string, string | Buffer>): Promise<{ problem: TemplateProblem; dir: string; error: TemplateError }> => {
    const dir = await folder(files);
    const error = await loadTemplates({ agencyDir: dir }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(TemplateError);
    // A TemplateError is a configuration error: the command exits 2.
    expect(error).toBeInstanceOf(ConfigError);
    const problem = (error as TemplateError).problems.find((p) => p.severity === 'error');
    expect(problem).toBeDefined();
    return { problem: problem as TemplateProblem, dir, error: error as TemplateError };
  };

  it('a syntax error', async () => {
    const { problem, dir, error } = await firstError({
      'partials/summary.hbs': '<section>\n  <h2>{{t "summary.title"}}</h2>\n  {{#if client.note}}\n  <p>{{client.note}</p>\n  {{/if}}\n</section>\n',
    });
    expect(problem).toMatchObject({ file: join(dir, 'partials/summary.hbs'), line: 4, column: 6 });
    expect(problem.message).toBe('Handlebars syntax error: the tag {{client.note}</p>… is not closed with }} (a brace missing?)');
    expect(error.message).toContain(`${join(dir, 'partials/summary.hbs')}:4:6:`);
    expect(error.message).not.toMatch(/Expecting|CLOSE_RAW_BLOCK/);
  });

  it('a block left open, named where it opens; three braces closed by two; an else without its block', async () => {
    const open = await firstError({ 'partials/summary.hbs': '<section>\n  {{#each summary as |line|}}\n  <p>{{line}}</p>\n</section>\n' });
    expect(open.problem).toMatchObject({ line: 2, column: 3 });
    expect(open.problem.message).toBe('Handlebars syntax error: the block {{#each summary as |line|}} is never closed: add {{/each}} where it ends');
    const braces = await firstError({ 'partials/summary.hbs': '<p>{{{styles}}</p>' });
    expect(braces.problem).toMatchObject({ line: 1, column: 4 });
    expect(braces.problem.message).toMatch(/the tag \{\{\{styles\}\} opens with three braces and closes with two/);
    const orphan = await firstError({ 'partials/summary.hbs': '{{#if a}}x{{else}}y{{else}}z{{/if}}' });
    expect(orphan.problem.message).toMatch(/this \{\{else\}\} has no block to belong to/);
  });

  it('a block closed by the wrong name', async () => {
    const { problem, dir } = await firstError({ 'report.hbs': '<html><body>\n{{#if scores}}\n{{> scores}}\n{{/each}}\n</body></html>' });
    expect(problem).toMatchObject({ file: join(dir, 'report.hbs'), line: 2, column: 4 });
    expect(problem.message).toBe(
      'Handlebars syntax error: {{/each}} closes the block {{#if …}} opened here: a block is closed by its own name, {{/if}} (is a {{/if}} missing, or misspelt?)',
    );
  });

  it('a partial that does not exist', async () => {
    const { problem, dir } = await firstError({ 'partials/summary.hbs': '<section>\n\n    {{> about-us}}\n</section>' });
    expect(problem).toMatchObject({ file: join(dir, 'partials/summary.hbs'), line: 3, column: 5 });
    expect(problem.message).toMatch(/the partial "about-us" does not exist: add partials\/about-us\.hbs/);
  });

  it('an unknown helper, called as a mustache, a block or a sub-expression', async () => {
    const { error, dir } = await firstError({
      'partials/summary.hbs': '<p>{{shout client.name}}</p>\n{{#repeat 3}}x{{/repeat}}\n{{#if (isBig scores)}}big{{/if}}\n{{upper}}',
    });
    const file = join(dir, 'partials/summary.hbs');
    const messages = error.problems.filter((p) => p.severity === 'error').map(formatProblem);
    expect(messages).toHaveLength(4);
    expect(messages.some((m) => m.startsWith(`${file}:1:4: error: unknown helper "shout"`))).toBe(true);
    expect(messages.some((m) => m.startsWith(`${file}:2:1: error: unknown block helper "repeat"`))).toBe(true);
    expect(messages.some((m) => m.startsWith(`${file}:3:7: error: unknown helper "isBig"`))).toBe(true);
    // {{upper}} without arguments is a value the page does not have: an error too, it would print nothing.
    expect(messages).toContainEqual(expect.stringMatching(new RegExp(`^${file}:4:\\d+: error: "upper" is not a value the template gets`)));
  });

  it('a mistyped helper or partial name: the nearest one suggested', async () => {
    const { error } = await firstError({ 'partials/summary.hbs': '<h2>{{tr "summary.title"}}</h2>\n{{> scroes}}' });
    const messages = error.problems.filter((p) => p.severity === 'error').map((p) => p.message);
    expect(messages).toContainEqual(expect.stringMatching(/^unknown helper "tr", did you mean "t"; the helpers are /));
    expect(messages).toContainEqual(expect.stringMatching(/^the partial "scroes" does not exist, did you mean "scores": add partials\/scroes\.hbs/));
  });

  it('a locale file that is not JSON, or holds something else than texts', async () => {
    const { problem, dir } = await firstError({ 'locales/fr.json': '{\n  "about.title": "À propos",\n}\n' });
    expect(problem).toMatchObject({ file: join(dir, 'locales/fr.json'), line: 3, column: 1 });
    const second = await firstError({ 'locales/en.json': '{\n  "about.title": 12\n}\n' });
    expect(second.problem).toMatchObject({ file: join(second.dir, 'locales/en.json'), line: 2, column: 3 });
    expect(second.problem.message).toBe('the value of "about.title" must be a text');
  });

  it('every error of the folder at once, sorted by file and line', async () => {
    const { error } = await firstError({
      'partials/summary.hbs': '{{> nothing}}\n{{bad 1}}',
      'partials/scores.hbs': '{{#if}}',
    });
    const errors = error.problems.filter((p) => p.severity === 'error');
    expect(errors.map((p) => [p.file.split('/').pop(), p.line])).toEqual([
      ['scores.hbs', 1],
      ['summary.hbs', 1],
      ['summary.hbs', 2],
    ]);
    expect(error.message).toMatch(/has 3 errors:/);
  });

  it('a folder that does not exist, or is a file', async () => {
    await expect(loadTemplates({ agencyDir: join(root, 'missing'), source: '--templates' })).rejects.toThrow(
      /--templates: the template folder .*missing does not exist/,
    );
    const file = join(root, 'a-file');
    await writeFile(file, 'x');
    await expect(loadTemplates({ agencyDir: file, source: '--templates' })).rejects.toThrow(/is a file, not a template folder/);
  });

  it('report.templates of a config file must be a folder, relative to the config file', async () => {
    const dir = await folder({ 'config/geo-reports.json': JSON.stringify({ report: { templates: '../my-templates' } }) });
    await expect(loadConfig({ path: 'config/geo-reports.json', cwd: dir })).rejects.toThrow(/report\.templates: the folder .*my-templates does not exist/);
    await mkdir(join(dir, 'my-templates'));
    const { config } = await loadConfig({ path: 'config/geo-reports.json', cwd: dir });
    expect(config.report.templates).toBe(join(dir, 'my-templates'));
  });
});

describe('names the model does not have and phrases no locale has: errors, before any request', () => {
  it('a misspelt name, with what its parent has', async () => {
    const problems = await problemsOf(await folder({ 'partials/summary.hbs': '<section>\n  <p>{{client.nmae}}</p>\n</section>' }));
    expect(problems).toEqual([
      expect.objectContaining({
        severity: 'error',
        line: 2,
        column: 8,
        message: expect.stringContaining('"client.nmae" is not a value the template gets ("client" has name, domain, note); it would render empty'),
      }),
    ]);
  });

  it('a value the model does not have ("Account manager:  — "), and a phrase of a group no locale has ("about.outro")', async () => {
    const problems = await problemsOf(
      await folder({ 'partials/summary.hbs': '<p>{{t "about.outro"}}</p>\n<p>Account manager: {{client.accountManager}} — {{t "summary.notee"}}</p>' }),
    );
    expect(problems.map((p) => [p.severity, p.line, p.column, p.message])).toEqual([
      [
        'error',
        1,
        4,
        expect.stringMatching(
          /^the phrase "about\.outro" is in no locale file: .*no phrase starts with "about\."; the groups of phrases are .*cover, .*summary/,
        ),
      ],
      ['error', 2, 23, expect.stringContaining('"client.accountManager" is not a value the template gets ("client" has name, domain, note)')],
      ['error', 2, 49, expect.stringMatching(/^the phrase "summary\.notee" is in no locale file: .*the nearest phrases are summary\.note,/)],
    ]);
  });

  it('a phrase made from a value that no locale has stops the rendering rather than printing the key', async () => {
    // "summary.<language>" passes the check (phrases start with "summary."), but "summary.en" is none of them.
    const dir = await folder({ 'partials/summary.hbs': '<p>{{t "summary" meta.language}}</p>' });
    await expect(rendererOf(dir).then((r) => r.renderReport(reportModel('en')))).rejects.toThrow(/the phrase "summary\.en" is in no locale file of "en"/);
  });

  it('a phrase asked for with a value needs phrases under its literal parts', async () => {
    const problems = await problemsOf(await folder({ 'partials/summary.hbs': '{{#each goals}}{{t "goal.state" status}}{{t "goals.status" status}}{{/each}}' }));
    expect(problems.map((p) => [p.severity, p.message.split(':')[0]])).toEqual([['error', 'no phrase "goal.state.…" is in no locale file']]);
  });

  it("an agency's partial of a scan section is checked against that section's view, and replaces the built-in one", async () => {
    const dir = await folder({
      'partials/section-keywords.hbs':
        '<section class="my-keywords"><h2>{{title}}</h2>\n{{#each rows}}{{keyword}} {{positon}}{{/each}} {{@root.meta.title}}</section>',
    });
    const problems = await problemsOf(dir);
    expect(problems).toEqual([
      expect.objectContaining({ severity: 'error', line: 2, message: expect.stringContaining('"positon" is not a value the template gets') }),
    ]);
    // Once the name is right, the agency's partial is the one the report uses.
    const fixed = await folder({
      'partials/section-keywords.hbs': '<section class="my-keywords"><h2>{{title}}</h2>\n{{#each rows}}{{keyword}}{{/each}} {{@root.meta.title}}</section>',
    });
    const renderer = await createHtmlRenderer({ templates: await loadTemplates({ agencyDir: fixed }) });
    const html = renderer.renderReport({ ...reportModel('en'), sections: { keywords: keywords.sample('en', loadPhrases('en')) } });
    expect(html).toContain('<section class="my-keywords"><h2>Keyword rankings</h2>');
    expect(html).not.toContain('<table class="keywords-table">');
  });

  it('names are followed through each, with, block parameters, ../ and @root', async () => {
    const template = [
      '{{#each recommendations.groups as |group|}}',
      '  {{#each group.items}}{{title}} {{group.priority}} {{../priority}} {{@root.meta.title}} {{tittle}}{{/each}}',
      '{{/each}}',
      '{{#with scores.geo}}{{value}} {{change.previous}} {{vale}}{{/with}}',
      '{{#each (take summary 2)}}{{this}} {{length}}{{/each}}',
      '{{#each history}}{{date}} {{@index}} {{@indx}}{{/each}}',
    ].join('\n');
    const problems = await problemsOf(await folder({ 'partials/summary.hbs': template }));
    expect(problems.map((p) => [p.line, p.message.split(' is not')[0]])).toEqual([
      [2, '"tittle"'],
      [4, '"vale"'],
      [6, '"@indx"'],
    ]);
  });

  it('a phrase key that is in no locale file', async () => {
    const problems = await problemsOf(await folder({ 'partials/summary.hbs': '<h2>{{t "summary.titel"}}</h2>' }));
    expect(problems).toEqual([
      expect.objectContaining({ line: 1, column: 5, message: expect.stringContaining('the phrase "summary.titel" is in no locale file') }),
    ]);
  });

  it('a phrase a language lacks, and one of the agency nothing uses, are listed with their keys', async () => {
    const dir = await folder({
      'locales/en.json': JSON.stringify({ 'about.title': 'About us' }),
      'locales/de.json': JSON.stringify({ 'about.title': 'Über uns', 'sumary.title': 'Überblick' }),
      'partials/summary.hbs': '<h2>{{t "about.title"}}</h2>',
    });
    const messages = (await problemsOf(dir)).map((p) => `${p.file.split('/').slice(-2).join('/')} ${p.severity} ${p.message}`);
    expect(messages).toContain(
      'locales/de.json warning 1 phrase nothing uses (no English phrase has the key, no template asks for it): sumary.title; check the spelling against locales/en.json',
    );
    expect(messages.some((m) => m.includes('es.json warning 1 phrase of en.json missing for "es"') && m.includes('about.title'))).toBe(true);
    expect(messages.some((m) => m.includes('locales/de.json') && m.includes('missing'))).toBe(false);
  });

  it('files nothing reads', async () => {
    const problems = await problemsOf(await folder({ 'summary.hbs': 'x', 'assets/theme.css': 'x', 'locales/notes.json': '{}' }));
    expect(problems.map((p) => [p.file.split('/').slice(-2).join('/'), p.severity])).toEqual([
      ['assets/theme.css', 'warning'],
      ['locales/notes.json', 'warning'],
      [expect.stringMatching(/summary\.hbs$/), 'warning'],
    ]);
  });
});

describe('still sealed: what an agency template may not do', () => {
  const errorsOf = async (files: Record<string, string | Buffer>): Promise<string[]> =>
    (await problemsOf(await folder(files))).filter((p) => p.severity === 'error').map((p) => `${p.line}:${p.column} ${p.message}`);

  it('no script, no event handler, no javascript: URL, no element that loads a page or a resource', async () => {
    const errors = await errorsOf({
      'partials/summary.hbs': [
        '<script>alert(1)</script>',
        '<img src="data:image/png;base64,AAAA" onerror="alert(1)">',
        '<a href="javascript:alert(1)">x</a>',
        '<iframe src="about:blank"></iframe>',
        '<link rel="stylesheet" href="theme.css">',
        '<meta http-equiv="refresh" content="0">',
        '<SCRIPT src="x.js"></SCRIPT>',
      ].join('\n'),
    });
    expect(errors).toEqual([
      expect.stringMatching(/^1:1 <script> is not allowed/),
      expect.stringMatching(/^2:39 the event handler onerror/),
      expect.stringMatching(/^3:10 a javascript: URL is not allowed/),
      expect.stringMatching(/^4:1 <iframe> is not allowed/),
      expect.stringMatching(/^5:1 <link> is not allowed/),
      expect.stringMatching(/^6:7 <meta http-equiv> is not allowed/),
      expect.stringMatching(/^7:1 <script> is not allowed/),
    ]);
  });

  it('no remote resource, in a template or its CSS', async () => {
    const errors = await errorsOf({
      'partials/summary.hbs':
        '<img src="https://cdn.example/team.png">\n<div style="background:url(http://cdn.example/bg.png)"></div>\n<img src="//cdn.example/x.png">',
      'partials/cover.hbs': '<style>\n@import url(https://fonts.example/inter.css);\n</style>',
      'assets/extra.css': '/* url(https://in-a-comment.example) is fine */\n.cover { background: url( "https://cdn.example/bg.png" ); }\n',
    });
    // By file: assets/extra.css, partials/cover.hbs, partials/summary.hbs.
    expect(errors).toEqual([
      expect.stringMatching(/^2:28 url\(https:\/\/cdn\.example\/bg\.png\) points outside the report/),
      expect.stringMatching(/^2:1 @import is not allowed/),
      expect.stringMatching(/^2:13 url\(https:\/\/fonts\.example\/inter\.css\) points outside the report/),
      expect.stringMatching(/^1:11 src="https:\/\/cdn\.example\/team\.png" points outside the report/),
      expect.stringMatching(/^2:28 url\(http:\/\/cdn\.example\/bg\.png\) points outside the report/),
      expect.stringMatching(/^3:11 src="\/\/cdn\.example\/x\.png" points outside the report/),
    ]);
  });

  it('images only from inside the folder: not above it, not through a link out of it, not built from a value', async () => {
    const outside = join(root, 'outside.png');
    await writeFile(outside, 'not really a png');
    const dir = await folder({
      'partials/summary.hbs':
        '<img src="../outside.png">\n<img src="images/linked.png">\n<img src="images/{{client.name}}.png">\n<img src="images/none.png">\n<img src="notes.txt">',
      'notes.txt': 'x',
    });
    await mkdir(join(dir, 'images'));
    await symlink(outside, join(dir, 'images/linked.png'));
    const errors = (await problemsOf(dir)).filter((p) => p.severity === 'error').map((p) => `${p.line}:${p.column} ${p.message}`);
    expect(errors).toEqual([
      expect.stringMatching(/^1:11 "\.\.\/outside\.png" is outside the template folder/),
      expect.stringMatching(/^2:11 "images\/linked\.png" leads outside the template folder \(a link\)/),
      expect.stringMatching(/^3:11 src="images\/\{\{client\.name\}\}\.png" builds a path from a value/),
      expect.stringMatching(/^4:11 "images\/none\.png" does not exist/),
      expect.stringMatching(/^5:11 "notes\.txt" must be an image/),
    ]);
  });

  it('a template or locale file that is a link out of the folder is refused, never read', async () => {
    const secret = join(root, 'secret.txt');
    await writeFile(secret, 'root:x:0:0:secret');
    const dir = await folder({});
    await mkdir(join(dir, 'partials'));
    await mkdir(join(dir, 'locales'));
    await symlink(secret, join(dir, 'partials', 'summary.hbs'));
    await symlink(secret, join(dir, 'locales', 'en.json'));
    const problems = await problemsOf(dir);
    expect(problems.filter((p) => p.severity === 'error').map((p) => [p.file, p.message])).toEqual([
      [join(dir, 'locales', 'en.json'), expect.stringMatching(/^leads outside the template folder/)],
      [join(dir, 'partials', 'summary.hbs'), expect.stringMatching(/^leads outside the template folder/)],
    ]);
    expect(JSON.stringify(problems)).not.toContain('root:x:0:0');
  });

  it('an image too large to carry in every report', async () => {
    const errors = await errorsOf({ 'big.png': Buffer.alloc(MAX_INLINE_BYTES + 1), 'partials/summary.hbs': '<img src="big.png">' });
    expect(errors).toEqual([expect.stringMatching(/^1:11 "big\.png" weighs \d+ KB/)]);
  });

  it('output without escaping over a value is an error; a helper that draws markup may be written so; an escaped value stays escaped', async () => {
    const dir = await folder({ 'partials/summary.hbs': '<p>{{{client.note}}}</p>\n<p>{{&client.name}}</p>\n<p>{{{t "summary.title"}}}</p>' });
    expect(await problemsOf(dir)).toEqual([
      expect.objectContaining({ severity: 'error', line: 1, column: 4, message: expect.stringMatching(/without escaping/) }),
      expect.objectContaining({ severity: 'error', line: 2, column: 4, message: expect.stringMatching(/without escaping/) }),
      expect.objectContaining({ severity: 'error', line: 3, column: 4, message: expect.stringMatching(/without escaping/) }),
    ]);
    const drawn = await folder({ 'partials/summary.hbs': '<div>{{{historyChart history}}}</div>\n<p class="escaped">{{client.name}}</p>' });
    expect(await problemsOf(drawn)).toEqual([]);
    const model = reportModel('en');
    model.client.name = '<img src=x onerror=alert(1)>';
    expect((await rendererOf(drawn)).renderReport(model)).toContain('<p class="escaped">&lt;img src&#x3D;x onerror&#x3D;alert(1)&gt;</p>');
  });
});
