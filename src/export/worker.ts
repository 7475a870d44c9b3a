// A thread of a large export (see pieces.ts): the pieces of its share of the clients, sent a batch at a time and
// no more than BATCHES_AHEAD batches ahead of the writer.
import { parentPort, workerData } from 'node:worker_threads';
import { BATCH_SIZE, BATCHES_AHEAD, sharePieces, threadError, type PlacedPiece, type ShareInput, type ShareMessage } from './pieces.js';

const port = parentPort;
if (port === null) throw new Error('worker.ts runs as a thread of the export (pieces.ts starts it).');
const input = workerData as ShareInput;
let allowed = BATCHES_AHEAD;
let wake: (() => void) | null = null;
port.on('message', () => {
  allowed += 1;
  wake?.();
  wake = null;
});
const send = (message: ShareMessage): void => port.postMessage(message);

let batch: PlacedPiece[] = [];
const flush = async (): Promise<void> => {
  while (allowed === 0) await new Promise<void>((resolve) => (wake = resolve));
  allowed -= 1;
  send({ type: 'batch', pieces: batch });
  batch = [];
};
const source = { ...input.source, clock: () => new Date(input.now), onSkip: (message: string) => send({ type: 'skip', message }) };
try {
  for await (const placed of sharePieces(source, input.share, input.format)) {
    batch.push(placed);
    if (batch.length >= BATCH_SIZE) await flush();
  }
  if (batch.length > 0) await flush();
  send({ type: 'end' });
} catch (error) {
  // Sent as a message, so that the export says a config or disk problem with its fix, as in one thread.
  send({ type: 'error', error: threadError(error) });
}
