#!/usr/bin/env node
// Runs the compiled CLI in dist/ (`npm run build`; `npm ci` and `npm install` build it through `prepare`).
let cli;
try {
  cli = await import('../dist/cli.js');
} catch (error) {
  if (error?.code !== 'ERR_MODULE_NOT_FOUND' || !String(error.message).includes('dist/cli.js')) throw error;
  process.stderr.write('Error: geo-reports is not built (dist/cli.js is missing).\nFix: run `npm run build` in the geo-reports folder.\n');
  process.exit(1);
}
process.exitCode = await cli.main({ argv: process.argv.slice(2), env: process.env });
