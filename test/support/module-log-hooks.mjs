// Module hooks for a spawned CLI: appends the URL of every module it imports to the file given at registration,
// so a test can tell which code a command loaded.
import { appendFileSync } from 'node:fs';

let log = '';

export function initialize(data) {
  log = data.log;
}

export async function resolve(specifier, context, nextResolve) {
  const result = await nextResolve(specifier, context);
  appendFileSync(log, `${result.url}\n`);
  return result;
}
