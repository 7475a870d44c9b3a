// Limits on the printer's waits: a browser that stops answering must not hold a report (or the run) for ever.

/** Starts a limit: calls `expire` after `ms` unless the returned function cancels it first. */
export type StartDeadline = (ms: number, expire: () => void) => () => void;

export const timerDeadline: StartDeadline = (ms, expire) => {
  const timer = setTimeout(expire, ms);
  return () => clearTimeout(timer);
};

/** `work`, or the error of `onTimeout` once `ms` have passed; the limit is cancelled when `work` settles. */
export function withTimeout<T>(work: Promise<T>, ms: number, onTimeout: () => Error, startDeadline: StartDeadline = timerDeadline): Promise<T> {
  let cancel = (): void => {};
  const deadline = new Promise<never>((_, reject) => {
    cancel = startDeadline(ms, () => reject(onTimeout()));
  });
  return Promise.race([work, deadline]).finally(cancel);
}
