// Preloaded into a spawned CLI (node --import) by a test that kills it halfway: every rename (the last step of each
// atomic write) waits 150 ms first, so the process is surely still writing when the test's signal lands.
import fsPromises from 'node:fs/promises';
import { syncBuiltinESMExports } from 'node:module';
import { setTimeout as delay } from 'node:timers/promises';

const rename = fsPromises.rename;
fsPromises.rename = async (...args) => {
  await delay(150);
  return rename(...args);
};
syncBuiltinESMExports();
