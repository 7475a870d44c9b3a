// Preloaded into a spawned CLI (node --import) by a test of a full disk: the links record (links.json) is written
// once, then never again, as on a disk that filled up during the publish; every other file is written as usual.
import fsPromises from 'node:fs/promises';
import { syncBuiltinESMExports } from 'node:module';

const rename = fsPromises.rename;
let records = 0;
fsPromises.rename = async (from, to) => {
  if (String(to).endsWith('links.json') && (records += 1) > 1)
    throw Object.assign(new Error(`ENOSPC: no space left on device, rename '${String(from)}' -> '${String(to)}'`), { code: 'ENOSPC' });
  return rename(from, to);
};
syncBuiltinESMExports();
