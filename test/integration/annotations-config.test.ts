// Annotations read from a config folder: from the config and from annotations/<id>.csv beside it, refused naming
// the file, the line and the field.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { datedAnnotations, monthlyNote, parseAnnotationFile } from '../../src/config/annotations.js';
import { loadConfig } from '../../src/config/load.js';
import { ConfigError } from '../../src/errors.js';
import { toMonth } from '../../src/period.js';

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'geo-annotations-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A config folder: the config file, and annotation files beside it. */
async function configFolder(name: string, config: string, files: Record<string, string> = {}): Promise<string> {
  const folder = join(dir, name);
  await mkdir(join(folder, 'annotations'), { recursive: true });
  await writeFile(join(folder, 'geo-reports.json'), config);
  for (const [file, text] of Object.entries(files)) await writeFile(join(folder, 'annotations', file), text);
  return join(folder, 'geo-reports.json');
}

const refusal = async (path: string): Promise<string> => {
  const error = await loadConfig({ path, cwd: dir }).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(ConfigError);
  return (error as ConfigError).message;
};

describe('annotations in the config and beside it', () => {
  it('reads both forms and the files, the files after the config, a month as the date being its note', async () => {
    const path = await configFolder(
      'good',
      JSON.stringify({
        clients: {
          '102': {
            annotations: [
              { date: '2026-05-03', text: 'Titles rewritten', kind: 'content' },
              { period: '2026-10', note: 'October note' },
            ],
          },
        },
      }),
      {
        '102.csv': 'date,text,kind\n2026-06-01,"Blog, relaunched",content\n2026-10,"A note, from the file"\n',
        '103.csv': '\uFEFFdate,text\r\n2026-04-02,"He said ""hi"""\r\n',
      },
    );
    const { config } = await loadConfig({ path, cwd: dir });
    const own = config.clients['102']?.annotations;
    expect(datedAnnotations(own)).toEqual([
      { date: '2026-05-03', text: 'Titles rewritten', kind: 'content' },
      { date: '2026-06-01', text: 'Blog, relaunched', kind: 'content' },
    ]);
    // The last note given for a month wins: the file's, read after the config.
    expect(monthlyNote(own, toMonth('2026-10'))).toBe('A note, from the file');
    expect(monthlyNote(own, toMonth('2026-09'))).toBeNull();
    expect(datedAnnotations(config.clients['103']?.annotations)).toEqual([{ date: '2026-04-02', text: 'He said "hi"', kind: null }]);
  });

  it('refuses a bad entry of the config naming its line and key', async () => {
    const text =
      '{\n  "clients": {\n    "7": {\n      "annotations": [\n        { "date": "2026-05-03", "text": "ok" },\n        { "date": "2026-02-30", "text": "no such day" }\n      ]\n    }\n  }\n}\n';
    const message = await refusal(await configFolder('bad-date', text));
    expect(message).toContain('geo-reports.json');
    expect(message).toContain('line 6, clients."7".annotations[1].date: expected a date like "2026-05-03"');
    const long = await refusal(
      await configFolder('long', JSON.stringify({ clients: { '7': { annotations: [{ date: '2026-05-03', text: 'x'.repeat(121) }] } } })),
    );
    expect(long).toMatch(/line 1, clients\."7"\.annotations\[0\]\.text: is too long: at most 120 characters/);
    const both = await refusal(
      await configFolder('both', JSON.stringify({ clients: { '7': { annotations: [{ date: '2026-05-03', text: 'a', note: 'b' }] } } })),
    );
    expect(both).toContain('not both');
    const missing = await refusal(await configFolder('missing', JSON.stringify({ clients: { '7': { annotations: [{ period: '2026-05' }] } } })));
    expect(missing).toContain('annotations[0].note: is missing');
  });

  it.each([
    ['a day that is not one', 'date,text,kind\n2026-05-03,ok,\n2026-13-01,Titles,content\n', /7\.csv line 3, field date: expected a date/],
    ['a text too long', `date,text\n2026-05-03,${'y'.repeat(121)}\n`, /7\.csv line 2, field text: is too long: at most 120 characters/],
    ['an empty text', 'date,text\n2026-05-03,  \n', /7\.csv line 2, field text: is empty/],
    ['a kind too long', `date,text,kind\n2026-05-03,ok,${'k'.repeat(41)}\n`, /7\.csv line 2, field kind: is too long/],
    ['a month without its note', 'date,text\n2026-05,\n', /7\.csv line 2, field text: is empty/],
    ['a wrong header', 'day,text\n2026-05-03,ok\n', /7\.csv line 1: the first line must be the header date,text,kind/],
    ['a comma outside quotes', 'date,text,kind\n2026-05-03,a,b,c\n', /7\.csv line 2: 4 fields where the header has 3/],
    ['a quote never closed', 'date,text\n2026-05-03,"open\n2026-05-04,x\n', /7\.csv line 2: a quoted field is never closed/],
  ])('refuses an annotations file with %s, naming the file, line and field', async (name, csv, expected) => {
    const path = await configFolder(`file-${name.replace(/\W+/g, '-')}`, '{}', { '7.csv': csv });
    const message = await refusal(path);
    expect(message).toMatch(expected);
    expect(message).toContain(join(dir, `file-${name.replace(/\W+/g, '-')}`, 'annotations', '7.csv'));
  });

  it('counts lines across a quoted line break, and refuses a file not named by a project id', async () => {
    expect(() => parseAnnotationFile('date,text\n2026-05-03,"two\nlines"\n2026-05-32,x\n', 'a.csv')).toThrow(/a\.csv line 4, field date/);
    const message = await refusal(await configFolder('name', '{}', { 'acme.csv': 'date,text\n' }));
    expect(message).toContain('the name of an annotations file is the project');
  });
});
