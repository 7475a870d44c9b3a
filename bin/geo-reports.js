#!/usr/bin/env node
// Runs the TypeScript sources directly (tsx), so the command works right after `npm ci` with no build step.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/cli.ts');
process.exitCode = await main({ argv: process.argv.slice(2), env: process.env });
