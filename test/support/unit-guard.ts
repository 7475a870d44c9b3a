// Setup of the unit tests: they run in memory only (README, Development). Writing a file, opening a socket (even on
// loopback) or starting a process fails the test with where it belongs: test/integration/.
import childProcess from 'node:child_process';
import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import net from 'node:net';

function refuse(target: object, names: string[], what: string): void {
  for (const name of names) {
    Object.defineProperty(target, name, {
      configurable: true,
      writable: true,
      value: () => {
        throw new Error(`A unit test may not ${what} (${name}): a test that needs it belongs in test/integration/.`);
      },
    });
  }
}

const WRITES = ['writeFile', 'appendFile', 'mkdir', 'mkdtemp', 'rm', 'rmdir', 'rename', 'copyFile', 'cp', 'symlink', 'link', 'unlink', 'truncate'];
refuse(fs, [...WRITES, ...WRITES.map((name) => `${name}Sync`), 'createWriteStream'], 'write to the disk');
refuse(fs.promises, WRITES, 'write to the disk');
refuse(childProcess, ['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync', 'fork'], 'start a process');
refuse(net.Socket.prototype, ['connect'], 'open a socket');
refuse(net.Server.prototype, ['listen'], 'listen on a socket');
// `import { writeFile } from 'node:fs'` reads the same refusals.
syncBuiltinESMExports();
