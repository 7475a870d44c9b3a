// A pause that ends early, without an error, when the signal aborts: a stopping run stops waiting, then saves.
export function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    if (signal?.aborted === true) done();
    else signal?.addEventListener('abort', done, { once: true });
  });
}
