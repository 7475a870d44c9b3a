// A static host on loopback, as the published site is served in production (a web server, a bucket, GitHub Pages):
// files by path, a folder's index.html (a folder without its slash is redirected to it), 404.html for anything
// else, the content type from the extension, no listing, nothing outside the folder. It counts what it is asked.
import { readFile, stat } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize, sep } from 'node:path';

const TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.pdf': 'application/pdf',
  '.txt': 'text/plain; charset=utf-8',
};

export interface StaticSite {
  /** With its trailing slash. */
  url: string;
  requests: string[];
  close(): Promise<void>;
}

export async function serveSite(root: string): Promise<StaticSite> {
  const requests: string[] = [];
  const server = createServer((req, res) => {
    void (async () => {
      requests.push(`${req.method ?? ''} ${req.url ?? ''}`);
      const notFound = async (): Promise<void> => {
        const body = await readFile(join(root, '404.html')).catch(() => Buffer.from('Not found'));
        res.writeHead(404, { 'content-type': TYPES['.html'] as string }).end(req.method === 'HEAD' ? undefined : body);
      };
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        res.writeHead(405).end();
        return;
      }
      let path: string;
      try {
        path = decodeURIComponent(new URL(req.url ?? '/', 'http://site.invalid').pathname);
      } catch {
        res.writeHead(400).end();
        return;
      }
      const file = normalize(join(root, path));
      if (!`${file}${sep}`.startsWith(`${normalize(root)}${sep}`)) {
        await notFound();
        return;
      }
      const info = await stat(file).catch(() => null);
      if (info?.isDirectory() === true) {
        if (!path.endsWith('/')) {
          res.writeHead(301, { location: `${path}/` }).end();
          return;
        }
        const index = join(file, 'index.html');
        if ((await stat(index).catch(() => null))?.isFile() !== true) {
          await notFound();
          return;
        }
        const body = await readFile(index);
        res.writeHead(200, { 'content-type': TYPES['.html'] as string, 'content-length': body.length }).end(req.method === 'HEAD' ? undefined : body);
        return;
      }
      if (info?.isFile() !== true) {
        await notFound();
        return;
      }
      const body = await readFile(file);
      res
        .writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream', 'content-length': body.length })
        .end(req.method === 'HEAD' ? undefined : body);
    })().catch(() => {
      res.writeHead(500).end();
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    requests,
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}
