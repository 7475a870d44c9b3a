// The floors of src/, top to bottom: a folder (or a module at the root of src/) may import its own files and the
// floors below it, never a floor above it nor a neighbour on its own floor. So no folder imports a folder that
// imports it back. A new folder goes on a floor here first: until then, everything it imports is refused.
// Type-only imports count: a type pulled from above is a dependency on what is above.
/** @type {string[][]} */
const FLOORS = [
  ['cli.ts'],
  // One file per command: what the user runs.
  ['commands'],
  // Servers of their own above the work: the template preview (the batch's render steps on saved or sample data),
  // and the webhook receiver (its alerts go out through the delivery channels).
  ['preview', 'events'],
  // The work: the monthly run, sending, the diagnosis, the month-to-month history, the published site of client
  // pages, the export of the values on disk, the API double.
  ['batch', 'delivery', 'doctor', 'export', 'history', 'site', 'simulator'],
  // The period folder (files, manifest, agency index) and the configuration (file and environment).
  ['output', 'config'],
  // Report model → HTML and PDF.
  ['render'],
  // API content → report model.
  ['report'],
  // Report sections made from a scan, each one folder (reader, model part, partial, phrases): src/sections/index.ts.
  ['sections'],
  // Reading the API: the client (strict on what the spec names) and the content readers. Neither imports the other.
  ['api', 'content'],
  // What both need: the spec's words and finders; the phrases and formats of every language.
  ['spec', 'i18n'],
  ['period.ts', 'pause.ts', 'process-alive.ts', 'nearest-name.ts', 'outgoing-text.ts', 'help-layout.ts'],
  ['errors.ts', 'exit-codes.ts', 'command-context.ts'],
];

const escape = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** A folder's files, or a root module. */
const pathOf = (unit) => (unit.endsWith('.ts') ? `^src/${escape(unit)}$` : `^src/${escape(unit)}/`);
const below = (index) => FLOORS.slice(index + 1).flat();

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'Modules that import each other, even inside one folder: load order and tests get fragile.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'render-rooms',
      severity: 'error',
      comment:
        'src/render/ holds two rooms beside the HTML: print/ (the browser, the printer, the PDF) and template-check/ ' +
        '(an agency folder checked before any request). Neither reaches into the other: a printing change never ' +
        'touches the checks, and the checks never load the browser.',
      from: { path: '^src/render/(print|template-check)/' },
      to: { path: '^src/render/(print|template-check)/', pathNot: '^src/render/$1/' },
    },
    {
      name: 'not-to-unresolvable',
      severity: 'error',
      comment: 'An import that resolves to nothing.',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  allowed: [
    // Packages and Node's own modules, from anywhere.
    { from: {}, to: { path: '^node_modules/' } },
    { from: {}, to: { dependencyTypes: ['core'] } },
    ...FLOORS.flatMap((floor, index) =>
      floor.map((unit) => ({
        comment: `${unit} imports its own files and the floors below it: ${below(index).join(', ') || 'none'}`,
        from: { path: pathOf(unit) },
        to: { path: [pathOf(unit), ...below(index).map(pathOf)] },
      })),
    ),
  ],
  allowedSeverity: 'error',
  options: {
    doNotFollow: { path: '^node_modules/' },
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types'] },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
