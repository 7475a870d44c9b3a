// Whether a process still runs: what tells a lock or a folder left by a killed run from one in use.

/** True while process `pid` exists (one of another user's, which we may not signal, included). */
export function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
