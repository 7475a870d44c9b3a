// The benchmark's API double in a process of its own, as the real service would be: the batch's memory and CPU
// are then measured without the double's data (every report it made, every request it recorded).
//   forked by bench/batch-bench.ts: argv[2] = project count; sends { url }, then on 'finish' { requests, cpuMs }.
import { DEMO_TOKEN, startSimulator } from '../src/simulator/server.js';

const send = (message: unknown): void => {
  process.send?.(message);
};
const simulator = await startSimulator({ projectCount: Number(process.argv[2]), tokens: [DEMO_TOKEN] });
const cpuBefore = process.cpuUsage();
send({ url: simulator.url });
process.on('message', (message) => {
  if (message !== 'finish') return;
  const cpu = process.cpuUsage(cpuBefore);
  send({ requests: simulator.state.requests.length, cpuMs: (cpu.user + cpu.system) / 1000 });
  void simulator.close().then(() => process.disconnect());
});
