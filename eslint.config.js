// ESLint: its recommended rules and typescript-eslint's recommended and strict sets, type-aware (every TypeScript
// file is read with tsconfig.json). Where a rule is tuned or switched off, the line says why. The direction of the
// folders of src/ (which may import which) is checked by dependency-cruiser (.dependency-cruiser.cjs).
import eslint from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'output/', 'node_modules/', 'coverage/'] },
  eslint.configs.recommended,
  tseslint.configs.strictTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // Numbers are written into messages and paths everywhere (`project ${id}`, `${count} sent`); the strict set
      // refuses even them. Booleans, null, undefined and objects stay refused: they print as words nobody meant.
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true }],
      // `(event) => progress.event(event)` hands a value on, and `if (…) return reply(res, …)` ends a function that
      // returns nothing with a call that returns nothing: the house style. A void expression used as a value (in a
      // condition, an assignment, an argument) is still refused.
      '@typescript-eslint/no-confusing-void-expression': ['error', { ignoreArrowShorthand: true, ignoreVoidReturningFunctions: true }],
      // `const { secret: _secret, ...shown } = webhook` leaves a field out of a copy: the rest is what is used.
      '@typescript-eslint/no-unused-vars': ['error', { ignoreRestSiblings: true }],
      // An implementation of a Promise-returning interface (a pipeline step, a transport's close, a test double's
      // sleep) is written `async` without an `await`. A promise left unawaited is caught by no-floating-promises and
      // no-misused-promises, which stay on.
      '@typescript-eslint/require-await': 'off',
    },
  },
  {
    files: ['test/**/*.ts'],
    rules: {
      // Vitest's asymmetric matchers (expect.any(String), expect.stringContaining(…)) are typed `any`, and they sit
      // inside expected objects by design.
      '@typescript-eslint/no-unsafe-assignment': 'off',
      // `expect(error).toBeInstanceOf(ServerError)`, then `(error as ServerError).call`: the class is what the line
      // before asserts.
      '@typescript-eslint/no-unsafe-class-instance-assignment': 'off',
      // Fixtures build errors and messages from loose records (`String(fields['message'] ?? 'error')`).
      '@typescript-eslint/no-base-to-string': 'off',
    },
  },
  {
    // JavaScript files (the bin script, the module hooks of a test, the configs) are not in tsconfig.json.
    files: ['**/*.js', '**/*.mjs', '**/*.cjs'],
    extends: [tseslint.configs.disableTypeChecked],
    languageOptions: {
      globals: { process: 'readonly', console: 'readonly', URL: 'readonly', module: 'writable', require: 'readonly' },
    },
  },
  {
    // The delivery ledger and its channels stay small enough to read: no function over 60 lines, comments included.
    files: ['src/delivery/**/*.ts'],
    rules: { 'max-lines-per-function': ['error', { max: 60, skipBlankLines: false, skipComments: false, IIFEs: true }] },
  },
);
