// A command whose module cannot load (an install that is incomplete or out of date) is an error that says what to
// do, with exit 2, not an unexpected error. The broken module is the one mock here: the real one cannot be broken in
// a unit test, which must not touch the disk.
import { expect, test, vi } from 'vitest';
import { main } from '../../src/cli.js';

vi.mock('../../src/commands/stats.js', () => {
  throw new Error("Cannot find module '/opt/geo-reports/dist/api/client.js' imported from /opt/geo-reports/dist/commands/stats.js");
});

test('a command whose module does not load: exit 2, the command named, the fix (npm ci / npm run build)', async () => {
  let stderr = '';
  const code = await main({
    argv: ['stats'],
    env: {},
    cwd: '/nonexistent-geo-reports-dir',
    stdout: { write: () => true },
    stderr: { write: (s: string) => ((stderr += s), true) },
    handleSignals: false,
  });
  expect(code).toBe(2);
  expect(stderr).toContain('Error: Could not load the command "stats": ');
  expect(stderr).toContain('npm ci');
  expect(stderr).not.toContain('Unexpected error');
});
