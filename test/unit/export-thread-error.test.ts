// An export thread's error crosses to the export as a message: a config or disk problem keeps its class and its fix,
// so the CLI says it with exit 2 as it does when one thread reads everything.
import { expect, test } from 'vitest';
import { exitCodeFor } from '../../src/cli.js';
import { ConfigError, FileSystemError, GeoReportsError } from '../../src/errors.js';
import { fromThread, threadError } from '../../src/export/pieces.js';

test('a thread error keeps its class, message and fix through the message that carries it', () => {
  const crossed = (error: unknown): Error => fromThread(structuredClone(threadError(error)));
  const config = crossed(new ConfigError('The output folder /srv/out does not exist.', { hint: 'Give --out the folder the runs wrote.' }));
  expect(config).toBeInstanceOf(ConfigError);
  expect(config.message).toBe('The output folder /srv/out does not exist.');
  expect((config as ConfigError).hint).toBe('Give --out the folder the runs wrote.');
  expect(exitCodeFor(config)).toBe(2);
  expect(crossed(new FileSystemError('Cannot read /srv/out/2026-10.'))).toBeInstanceOf(FileSystemError);
  const tool = crossed(new GeoReportsError('Stopped.'));
  expect(tool).toBeInstanceOf(GeoReportsError);
  expect(tool).not.toBeInstanceOf(ConfigError);
  const other = crossed(new TypeError('x is undefined'));
  expect(other).not.toBeInstanceOf(GeoReportsError);
  expect(other.message).toBe('x is undefined');
});
