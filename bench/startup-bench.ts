// Start-up cost of the CLI as installed (bin/geo-reports.js → dist/): wall time and CPU time of commands that
// only print, against Node itself doing nothing, and every command's --help as a ratio to it. Builds dist/ first.
// Prints figures; asserts nothing.
//   npm run bench:startup            5 runs of each
//   npm run bench:startup -- 9       9 runs of each
//   npm run bench -- --startup       the same, from the batch bench
import { spawnSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BIN = fileURLToPath(new URL('../bin/geo-reports.js', import.meta.url));
/** What the done-when of a quick CLI says: a command that only prints answers within this. */
const LIMIT_S = 0.3;

const runsArg = process.argv
  .slice(2)
  .map(Number)
  .find((n) => Number.isInteger(n) && n > 0);
const RUNS = runsArg ?? 5;

// Written by the measured process itself on exit, to fd 3: its own CPU time, start-up included.
const CPU_PROBE = `data:text/javascript,${encodeURIComponent(
  "import { writeSync } from 'node:fs'; process.on('exit', () => { const u = process.cpuUsage(); writeSync(3, String((u.user + u.system) / 1e6)); });",
)}`;

const CASES: Array<{ label: string; args: string[]; limited: boolean }> = [
  { label: 'node -e 0 (Node itself)', args: [], limited: false },
  { label: 'geo-reports --help', args: ['--help'], limited: true },
  { label: 'geo-reports usage --help', args: ['usage', '--help'], limited: true },
  { label: 'geo-reports projects --help', args: ['projects', '--help'], limited: false },
  { label: 'geo-reports --version', args: ['--version'], limited: false },
];

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
};

function nodeArgs(args: string[], probe: boolean): string[] {
  const script = args.length === 0 ? ['-e', '0'] : [BIN, ...args];
  return probe ? ['--import', CPU_PROBE, ...script] : script;
}

/** Wall time of one run, in seconds; the run must succeed. */
function wall(args: string[]): number {
  const started = performance.now();
  const run = spawnSync(process.execPath, nodeArgs(args, false), { cwd: ROOT, stdio: 'ignore' });
  const seconds = (performance.now() - started) / 1000;
  if (run.status !== 0) throw new Error(`node ${nodeArgs(args, false).join(' ')} exited ${String(run.status)}`);
  return seconds;
}

/** CPU time (user + system) of one run, in seconds, as the process reports it. */
function cpu(args: string[]): number {
  const run = spawnSync(process.execPath, nodeArgs(args, true), { cwd: ROOT, stdio: ['ignore', 'ignore', 'ignore', 'pipe'], encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`node ${nodeArgs(args, true).join(' ')} exited ${String(run.status)}`);
  return Number(run.output[3]);
}

const tsc = fileURLToPath(new URL('../node_modules/typescript/bin/tsc', import.meta.url));
const build = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: ROOT, stdio: 'inherit' });
if (build.status !== 0) throw new Error('npm run build failed');

const { COMMANDS } = await import('../src/commands/index.js');
/** Each command's --help may take this many times Node's own start-up (the registry's promise). */
const RATIO_LIMIT = 1.5;
const load = (): string =>
  `load average ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`;

process.stdout.write(`CLI start-up, median of ${RUNS} runs (wall: elapsed time; cpu: user + system of the process); ${load()}\n`);
for (const { label, args, limited } of CASES) {
  const walls = Array.from({ length: RUNS }, () => wall(args));
  const cpus = Array.from({ length: RUNS }, () => cpu(args));
  const w = median(walls);
  const verdict = limited ? `  ${w <= LIMIT_S ? 'within' : 'OVER'} ${LIMIT_S} s` : '';
  process.stdout.write(`  ${label.padEnd(30)} wall ${w.toFixed(3)} s (min ${Math.min(...walls).toFixed(3)})  cpu ${median(cpus).toFixed(3)} s${verdict}\n`);
}

// Every command's --help against `node -e 0`, run in turn with it (node, command, node, command…): on a busy
// machine the load changes from one second to the next, and the ratio of neighbours says more than two medians apart.
process.stdout.write(`\nEvery command's --help against node -e 0, alternated, median of ${RUNS} pairs (wall; cpu)\n`);
let over = 0;
for (const { name } of COMMANDS) {
  const node: number[] = [];
  const help: number[] = [];
  const nodeCpu: number[] = [];
  const helpCpu: number[] = [];
  for (let run = 0; run < RUNS; run += 1) {
    node.push(wall([]));
    help.push(wall([name, '--help']));
    nodeCpu.push(cpu([]));
    helpCpu.push(cpu([name, '--help']));
  }
  const ratio = median(help) / median(node);
  const cpuRatio = median(helpCpu) / median(nodeCpu);
  if (Math.min(ratio, cpuRatio) > RATIO_LIMIT) over += 1;
  process.stdout.write(
    `  ${`${name} --help`.padEnd(26)} ${median(help).toFixed(3)} s / ${median(node).toFixed(3)} s = ${ratio.toFixed(2)}×  cpu ${cpuRatio.toFixed(2)}×${
      ratio <= RATIO_LIMIT ? '' : cpuRatio <= RATIO_LIMIT ? '  (wall over, cpu within)' : `  OVER ${RATIO_LIMIT}×`
    }\n`,
  );
}
process.stdout.write(
  `${over === 0 ? 'Every' : `${COMMANDS.length - over} of ${COMMANDS.length}`} command's --help within ${RATIO_LIMIT}× of node -e 0; ${load()}\n`,
);
