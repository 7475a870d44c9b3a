// What every command gets (environment, output streams, a cancel signal and a clock), and how it prints a result.

export interface Output {
  write(s: string): boolean;
  isTTY?: boolean;
}

export interface CommandContext {
  env: Record<string, string | undefined>;
  cwd: string;
  stdout: Output;
  stderr: Output;
  signal: AbortSignal;
  clock: () => Date;
}

/** Prints `data` as JSON with --json, otherwise as the table `render` makes. */
export function printResult(ctx: CommandContext, json: boolean, data: unknown, render: () => string): void {
  ctx.stdout.write(json ? `${JSON.stringify(data, null, 2)}\n` : `${render()}\n`);
}

/** A plain text table: headers, aligned columns, numbers right-aligned. */
export function table(headers: string[], rows: Array<Array<string | number | null | undefined>>): string {
  const cells = rows.map((row) => row.map((c) => (c === null || c === undefined ? '–' : String(c))));
  const widths = headers.map((h, i) => Math.min(60, Math.max(h.length, ...cells.map((r) => (r[i] ?? '').length))));
  const numeric = headers.map((_, i) => cells.length > 0 && cells.every((r) => /^-?[\d.,%]+$|^–$/.test(r[i] ?? '')));
  const fit = (text: string, i: number): string => {
    const w = widths[i] ?? 0;
    const clipped = text.length > w ? `${text.slice(0, w - 1)}…` : text;
    return numeric[i] ? clipped.padStart(w) : clipped.padEnd(w);
  };
  const line = (r: string[]): string => r.map(fit).join('  ').trimEnd();
  const rule = widths.map((w) => '─'.repeat(w)).join('  ');
  return [line(headers), rule, ...cells.map(line)].join('\n') + (rows.length === 0 ? '\n(none)' : '');
}
