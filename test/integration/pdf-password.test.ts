// A PDF that opens with a password (report.pdf.encryptWithEnv): real qpdf, real poppler, the real CLI. The password
// comes from the variable the config names, never from the file; without it the run stops before any request.
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { protectPdf, qpdfVersion } from '../../src/render/print/protect.js';
import { runCli } from '../support/cli.js';

const run = promisify(execFile);
const PASSWORD = 'tr0ub4dor &3 "quoted" -- @-';

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'geo-pdf-password-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

async function onePagePdf(text: string): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  doc.addPage().drawText(text, { x: 50, y: 700, font, size: 14 });
  doc.setAuthor('Northwind Digital');
  return doc.save();
}

describe('protectPdf', () => {
  it('encrypts with AES-256: poppler refuses it without the password and reads it with it', async () => {
    expect(await qpdfVersion()).toMatch(/^qpdf version \d+/);
    const path = join(root, 'locked.pdf');
    await writeFile(path, await protectPdf(await onePagePdf('Quarterly review'), PASSWORD, { tmp: root }));
    await expect(run('pdftotext', [path, '-'])).rejects.toThrow(/Incorrect password/);
    const info = (await run('pdfinfo', ['-upw', PASSWORD, path])).stdout;
    expect(info).toMatch(/^Encrypted: +yes .*AES-256/m);
    expect(info).toMatch(/^Author: +Northwind Digital$/m);
    expect((await run('pdftotext', ['-upw', PASSWORD, path, '-'])).stdout).toContain('Quarterly review');
    // The plain copy qpdf read is gone.
    expect((await readdir(root)).filter((name) => name.startsWith('geo-reports-pdf-'))).toEqual([]);
  });

  it('names a qpdf that is not there, and how to install it, without the password', async () => {
    const error = await protectPdf(await onePagePdf('x'), PASSWORD, { qpdf: join(root, 'no-qpdf'), tmp: root }).catch((e: unknown) => e);
    expect(String(error)).toMatch(/qpdf could not be started/);
    expect(JSON.stringify(error, Object.getOwnPropertyNames(error))).not.toContain('tr0ub4dor');
    expect((error as { hint?: string }).hint).toMatch(/apt-get install qpdf/);
  });
});

describe('report.pdf.encryptWithEnv in a run', () => {
  it('stops before any request when the variable it names is not set, and refuses a password written in its place', async () => {
    const cwd = join(root, 'cli');
    await mkdir(cwd, { recursive: true });
    const env = { PATH: process.env['PATH'] ?? '', HOME: cwd };
    await writeFile(join(cwd, 'geo-reports.json'), JSON.stringify({ report: { pdf: { encryptWithEnv: 'CLIENT_PDF_PASSWORD' } } }));
    const unset = await runCli(['demo', '--projects', '2', '--config', 'geo-reports.json', '--out', 'out'], { env, cwd, timeoutMs: 60_000 });
    expect(unset.code).toBe(2);
    expect(unset.stderr).toContain('report.pdf.encryptWithEnv names CLIENT_PDF_PASSWORD, which is not set');
    expect(unset.stderr).toContain('Fix: Set CLIENT_PDF_PASSWORD');
    await expect(readdir(join(cwd, 'out'))).rejects.toThrow();

    await writeFile(join(cwd, 'geo-reports.json'), JSON.stringify({ report: { pdf: { encryptWithEnv: PASSWORD } } }));
    const inPlace = await runCli(['demo', '--projects', '2', '--config', 'geo-reports.json', '--out', 'out'], { env, cwd, timeoutMs: 60_000 });
    expect(inPlace.code).toBe(2);
    expect(inPlace.stderr).toContain('report.pdf.encryptWithEnv');
    expect(inPlace.stderr).toContain('the name of an environment variable');
    expect(inPlace.stderr + inPlace.stdout).not.toContain('tr0ub4dor');
  });
});
