// A PDF opened with a password (report.pdf.encryptWithEnv): AES-256 by qpdf, after the finishing. The password reaches
// qpdf on its standard input (`@-`), never on its command line, where any user of the machine could read it; the
// plain PDF waits in a folder only this user may open, removed when qpdf is done.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PdfPrintError } from './errors.js';

export interface ProtectOptions {
  /** The qpdf program. @default 'qpdf' (found on PATH) */
  qpdf?: string;
  /** Where the plain PDF waits for qpdf. @default os.tmpdir() */
  tmp?: string;
}

const INSTALL_HINT = 'Install qpdf (Debian/Ubuntu: apt-get install qpdf; macOS: brew install qpdf), or remove report.pdf.encryptWithEnv.';

/** `pdf` encrypted with `password` (to open it; printing and copying stay allowed). */
export async function protectPdf(pdf: Uint8Array, password: string, options: ProtectOptions = {}): Promise<Buffer> {
  const folder = await mkdtemp(join(options.tmp ?? tmpdir(), 'geo-reports-pdf-'));
  try {
    const plain = join(folder, 'report.pdf');
    await writeFile(plain, pdf, { mode: 0o600 });
    // A random owner password: nobody changes the permissions later; the client only needs to open it.
    const owner = randomBytes(24).toString('base64url');
    const args = ['--encrypt', password, owner, '256', '--', plain, '-'];
    const { code, stdout, stderr } = await runQpdf(options.qpdf ?? 'qpdf', args.join('\n') + '\n');
    // 3: written, with warnings (qpdf's own exit code for that).
    if (code !== 0 && code !== 3) {
      const said = stderr.split(password).join('<password>').trim().split('\n').slice(0, 3).join(' ');
      throw new PdfPrintError(`qpdf could not encrypt the PDF (exit ${code}): ${said}`, { hint: INSTALL_HINT });
    }
    return stdout;
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}

/** Whether qpdf runs here: checked once before a run that encrypts, so a missing qpdf costs no request. */
export async function qpdfVersion(qpdf = 'qpdf'): Promise<string | null> {
  try {
    const { code, stdout } = await runQpdf(qpdf, null, ['--version']);
    return code === 0 ? (stdout.toString('utf8').split('\n')[0] ?? '').trim() : null;
  } catch {
    return null;
  }
}

function runQpdf(qpdf: string, argsOnStdin: string | null, args: string[] = ['@-']): Promise<{ code: number; stdout: Buffer; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(qpdf, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    child.on('error', (error) =>
      reject(new PdfPrintError(`qpdf could not be started (${(error as NodeJS.ErrnoException).code ?? error.message}).`, { hint: INSTALL_HINT })),
    );
    child.on('close', (code) => resolve({ code: code ?? -1, stdout: Buffer.concat(out), stderr: Buffer.concat(err).toString('utf8') }));
    child.stdin.on('error', () => undefined);
    child.stdin.end(argsOnStdin ?? '');
  });
}
