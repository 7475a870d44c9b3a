import { mkdtempSync, openSync, writeSync, fsyncSync, closeSync, renameSync, appendFileSync, fdatasyncSync } from 'node:fs';
const dir = mkdtempSync('/tmp/fs-');
const buf = Buffer.alloc(120_000, 'x'); const small = Buffer.alloc(600, 'y');
function run(name: string, f: (i: number) => void, n = 400) { const c0 = process.cpuUsage(); const t = performance.now(); for (let i = 0; i < n; i++) f(i); const c = process.cpuUsage(c0); console.log(name.padEnd(28), 'wall', ((performance.now() - t) / n).toFixed(3), 'cpu', ((c.user + c.system) / 1000 / n).toFixed(3), 'sys', (c.system / 1000 / n).toFixed(3)); }
run('120KB atomic+fsync', (i) => { const fd = openSync(`${dir}/m.tmp`, 'w'); writeSync(fd, buf); fsyncSync(fd); closeSync(fd); renameSync(`${dir}/m.tmp`, `${dir}/m.json`); });
run('120KB atomic no fsync', (i) => { const fd = openSync(`${dir}/m.tmp`, 'w'); writeSync(fd, buf); closeSync(fd); renameSync(`${dir}/m.tmp`, `${dir}/m.json`); });
run('600KB atomic+fsync', (i) => { const fd = openSync(`${dir}/m.tmp`, 'w'); writeSync(fd, Buffer.concat([buf,buf,buf,buf,buf])); fsyncSync(fd); closeSync(fd); renameSync(`${dir}/m.tmp`, `${dir}/m.json`); }, 200);
const jfd = openSync(`${dir}/j.jsonl`, 'a');
run('600B append+fdatasync', (i) => { writeSync(jfd, small); fdatasyncSync(jfd); });
run('600B append no sync', (i) => { writeSync(jfd, small); });
