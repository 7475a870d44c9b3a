// The files of a template set, as read and as parsed (with one walk over a parsed template's statements), and the
// problems found in them, each at its place in a file: how a problem is recorded once, written for a terminal
// (`file:line:column`), and thrown when a set cannot be used.
// The AST type is Handlebars' global `hbs` namespace, declared by its package.
import type {} from 'handlebars';
import { ConfigError } from '../../errors.js';

/** A problem of a template set, at its place in a file. */
export interface TemplateProblem {
  severity: 'error' | 'warning';
  /** Absolute path of the file. */
  file: string;
  /** 1-based; absent when the problem is the file as a whole. */
  line?: number;
  column?: number;
  message: string;
}

/** One file of a template set, as read: from the agency's folder or the built-in one. */
export interface TemplateFile {
  /** Path inside the folder, with forward slashes: `partials/summary.hbs`. */
  name: string;
  /** Absolute path. */
  path: string;
  text: string;
  fromAgency: boolean;
}

/** A template with its syntax tree, parsed without whitespace processing: every position is the file's own. */
export interface ParsedTemplate {
  file: TemplateFile;
  ast: hbs.AST.Program;
}

/** Calls `visit` on every statement of a template in the order written, inside blocks, their {{else}} and inline partials too. */
export function eachStatement(program: hbs.AST.Program, visit: (node: hbs.AST.Node) => void): void {
  for (const node of program.body) {
    visit(node);
    for (const child of [(node as { program?: hbs.AST.Program }).program, (node as { inverse?: hbs.AST.Program }).inverse]) {
      if (child !== undefined) eachStatement(child, visit);
    }
  }
}

/** Records a problem of `file` at `at` (null: the file as a whole). */
export type RecordProblem = (file: TemplateFile, severity: TemplateProblem['severity'], at: { line: number; column: number } | null, message: string) => void;

/** A RecordProblem that adds to `problems` each problem once, however many checks find it at the same place. */
export function problemRecorder(problems: TemplateProblem[]): RecordProblem {
  const seen = new Set<string>();
  return (file, severity, at, message) => {
    const key = `${file.path}:${at?.line}:${at?.column}:${message}`;
    if (seen.has(key)) return;
    seen.add(key);
    problems.push({ severity, file: file.path, ...(at ?? {}), message });
  };
}

/** Line and column (1-based) of `offset` in `text`. */
export function positionOf(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  return { line: before.split('\n').length, column: offset - before.lastIndexOf('\n') };
}

/** Line and column (1-based) where a node of a parsed template starts. */
export const nodePosition = (node: hbs.AST.Node): { line: number; column: number } => ({ line: node.loc.start.line, column: node.loc.start.column + 1 });

/** `file:line:column: severity: message`, the form editors and terminals link to. */
export function formatProblem(problem: TemplateProblem): string {
  const at = problem.line === undefined ? problem.file : `${problem.file}:${problem.line}:${problem.column ?? 1}`;
  return `${at}: ${problem.severity}: ${problem.message}`;
}

/** A template folder that cannot be used as it is: every error found, each with its file and line. */
export class TemplateError extends ConfigError {
  readonly problems: readonly TemplateProblem[];

  constructor(message: string, problems: readonly TemplateProblem[], options: { hint?: string; cause?: unknown } = {}) {
    super(message, options);
    this.problems = problems;
  }
}
