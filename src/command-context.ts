// What every command gets, and hands on to the work it runs: environment, working folder, output streams, a cancel
// signal and a clock. Made once, by cli.ts.

export interface Output {
  write(s: string): boolean;
  isTTY?: boolean;
  /** The terminal's width, when it is one (help is wrapped to it). */
  columns?: number;
}

export interface CommandContext {
  env: Record<string, string | undefined>;
  cwd: string;
  stdout: Output;
  stderr: Output;
  signal: AbortSignal;
  clock: () => Date;
}
