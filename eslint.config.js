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
      // `(event) => progress.event(event)` hands a value on: the house style for callbacks. A void expression in
      // any other place (a condition, a return with braces) is still refused.
      '@typescript-eslint/no-confusing-void-expression': ['error', { ignoreArrowShorthand: true }],
      // `const { secret: _secret, ...shown } = webhook` leaves a field out of a copy: the rest is what is used.
      '@typescript-eslint/no-unused-vars': ['error', { ignoreRestSiblings: true }],
    },
  },
  {
    files: ['test/**/*.ts'],
    rules: {
      // Vitest's asymmetric matchers (expect.any(String), expect.stringContaining(…)) are typed `any`, and they sit
      // inside expected objects by design.
      '@typescript-eslint/no-unsafe-assignment': 'off',
      // A test double of a Promise-returning interface (a `sleep` that records, a channel that answers at once) is
      // written `async` without an `await`: that is what it stands in for.
      '@typescript-eslint/require-await': 'off',
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
