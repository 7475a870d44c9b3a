import { describe, expect, it } from 'vitest';
import { RecordWriter, type RecordFile } from '../../src/output/record-writer.js';

/** A file kept in memory that logs each write's start and end, each write held until the test lets it go. */
function heldFile(options: { journal: boolean; fail?: (write: string) => boolean }): {
  file: RecordFile<string>;
  log: string[];
  release: () => void;
} {
  const log: string[] = [];
  let waiting: Array<() => void> = [];
  const write = async (name: string): Promise<void> => {
    log.push(`start ${name}`);
    await new Promise<void>((resolve) => waiting.push(resolve));
    log.push(`end ${name}`);
    if (options.fail?.(name) === true) throw new Error(`${name} refused`);
  };
  const file: RecordFile<string> = {
    whole: () => write('whole'),
    ...(options.journal ? { append: (changes: readonly string[]) => write(`append ${changes.join(',')}`) } : {}),
    close: () => write('close'),
  };
  return {
    file,
    log,
    release: () => {
      const now = waiting;
      waiting = [];
      for (const resolve of now) resolve();
    },
  };
}

/** Lets every write under way end, one turn of the event loop at a time, until `done` settles. */
async function drain(release: () => void, done: Promise<unknown>): Promise<void> {
  const state = { settled: false };
  void done.then(
    () => (state.settled = true),
    () => (state.settled = true),
  );
  for (let i = 0; i < 50 && !state.settled; i += 1) {
    release();
    await new Promise((resolve) => setImmediate(resolve));
  }
}

describe('RecordWriter', () => {
  it('writes one at a time in the order asked; saves asked during a write share the next one, as one journal line', async () => {
    let now = 0;
    const { file, log, release } = heldFile({ journal: true });
    const before: string[] = [];
    const writer = new RecordWriter<string>({ file, onError: () => undefined, now: () => now, beforeWrite: () => before.push(`before ${log.length}`) });
    const first = writer.save('a'); // nothing written yet: the whole file
    await new Promise((resolve) => setImmediate(resolve));
    const second = writer.save('b');
    const third = writer.save('c');
    const fourth = writer.save('b');
    expect(third).toBe(second);
    expect(fourth).toBe(second);
    now = 100;
    await drain(release, Promise.all([first, second]));
    expect(log).toEqual(['start whole', 'end whole', 'start append b,c', 'end append b,c']);
    expect(before).toEqual(['before 0', 'before 2']);
  });

  it('rewrites the whole file when asked, and at least every wholeEveryMs; a file without a journal is always whole', async () => {
    let now = 0;
    const journaled = heldFile({ journal: true });
    const writer = new RecordWriter<string>({ file: journaled.file, onError: () => undefined, now: () => now, wholeEveryMs: 1_000 });
    const saves = async (...changes: Array<string | undefined>): Promise<void> => {
      for (const change of changes) {
        now += 400;
        await drain(journaled.release, writer.save(change));
      }
    };
    await saves('a', 'b', 'c', undefined, 'd');
    expect(journaled.log.filter((line) => line.startsWith('start'))).toEqual([
      'start whole',
      'start append b',
      'start append c',
      'start whole',
      'start append d',
    ]);

    const plain = heldFile({ journal: false });
    const whole = new RecordWriter<string>({ file: plain.file, onError: () => undefined, now: () => 0 });
    await drain(plain.release, whole.save('a'));
    await drain(plain.release, whole.save('b'));
    expect(plain.log.filter((line) => line.startsWith('start'))).toEqual(['start whole', 'start whole']);
  });

  it('a failed write goes to onError and the chain goes on; close() is the last write, after a save nobody awaited, and rejects with its failure', async () => {
    const errors: string[] = [];
    let refuse = true;
    const { file, log, release } = heldFile({ journal: true, fail: (name) => refuse && name !== 'close' });
    const writer = new RecordWriter<string>({ file, onError: (error) => errors.push((error as Error).message), now: () => 0 });
    await drain(release, writer.save('a'));
    expect(errors).toEqual(['whole refused']);
    refuse = false;
    void writer.save('b'); // asked for, not awaited
    const closed = writer.close();
    await drain(release, closed);
    await closed;
    // The whole write failed, so the next one is whole again: never a journal line over a file that was not written.
    expect(log.filter((line) => line.startsWith('start'))).toEqual(['start whole', 'start whole', 'start close']);

    const failing = heldFile({ journal: true, fail: () => true });
    const errorsAtClose: unknown[] = [];
    const last = new RecordWriter<string>({ file: failing.file, onError: (error) => errorsAtClose.push(error) });
    const closing = last.close();
    await drain(failing.release, closing);
    await expect(closing).rejects.toThrow('close refused');
    expect(errorsAtClose).toHaveLength(1);
    // The chain is not broken by it: idle() resolves.
    await expect(last.idle()).resolves.toBeUndefined();
  });

  it('goes on after a hook before a write throws: that write fails to onError, the next save writes its change', async () => {
    const written: string[] = [];
    const errors: unknown[] = [];
    let hookFails = true;
    const writer = new RecordWriter<string>({
      file: { whole: async () => void written.push('whole'), append: async (changes) => void written.push(changes.join(',')) },
      onError: (error) => errors.push(error),
      beforeWrite: () => {
        if (hookFails) throw new Error('not yet');
      },
      wholeEveryMs: 60_000,
      now: () => 0,
    });
    await writer.save('a');
    expect(errors.map((error) => (error as Error).message)).toEqual(['not yet']);
    expect(written).toEqual([]);
    hookFails = false;
    // The first write is whole (the file as it is, 'a' in it); the journal takes the changes after it.
    await writer.save('b');
    await writer.save('c');
    expect(written).toEqual(['whole', 'c']);
  });
});
