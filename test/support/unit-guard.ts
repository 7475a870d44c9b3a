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
// Opening a file for reading stays allowed (the repository's own files; no flags, as in open(path, callback), is a read);
// any other flag is a write.
const READ_FLAGS = new Set<fs.OpenMode | undefined>([undefined, 'r', 'rs', 'sr', fs.constants.O_RDONLY]);
type Open = (path: fs.PathLike, flags?: fs.OpenMode, ...rest: never[]) => unknown;
function readOnly(target: object, name: string, open: Open): void {
  Object.defineProperty(target, name, {
    configurable: true,
    writable: true,
    value: function (this: unknown, path: fs.PathLike, flags?: fs.OpenMode, ...rest: never[]) {
      if (typeof flags !== 'function' && !READ_FLAGS.has(flags)) {
        throw new Error(
          `A unit test may not write to the disk (${name} ${String(path)} with flags ${String(flags)}): a test that needs it belongs in test/integration/.`,
        );
      }
      return open.call(this, path, flags, ...rest);
    },
  });
}
readOnly(fs, 'open', fs.open);
readOnly(fs, 'openSync', fs.openSync as never);
readOnly(fs.promises, 'open', fs.promises.open);
refuse(net.Socket.prototype, ['connect'], 'open a socket');
refuse(net.Server.prototype, ['listen'], 'listen on a socket');
// `import { writeFile } from 'node:fs'` reads the same refusals.
syncBuiltinESMExports();
