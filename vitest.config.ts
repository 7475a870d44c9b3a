import { readFile } from 'node:fs/promises';
import { defineConfig } from 'vitest/config';

/** GitHub's workflow parser, loaded by Vite: it imports its JSON schema without an import attribute, which Node refuses. */
const WORKFLOW_PARSER = '/node_modules/@actions/workflow-parser/';

export default defineConfig({
  plugins: [
    {
      // Its source maps point to sources the package does not ship: read the code without them (no warning per file).
      name: 'workflow-parser-without-source-maps',
      enforce: 'pre',
      async load(id) {
        if (!id.includes(WORKFLOW_PARSER) || !id.endsWith('.js')) return null;
        const code = await readFile(id, 'utf8');
        return { code: code.replace(/^\/\/# sourceMappingURL=.*$/m, ''), map: null };
      },
    },
  ],
  test: {
    // Unit tests run in memory only (the setup refuses disk writes, sockets and processes); every other test is an
    // integration test. `npm test` runs both.
    projects: [
      { extends: true, test: { name: 'unit', include: ['test/unit/**/*.test.ts'], setupFiles: ['test/support/unit-guard.ts'] } },
      { extends: true, test: { name: 'integration', include: ['test/integration/**/*.test.ts'] } },
    ],
    // Builds dist/ when a source changed: the spawned CLI runs the compiled code, as an installed one does.
    globalSetup: ['test/support/build.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    maxWorkers: 2,
    server: { deps: { inline: ['@actions/workflow-parser'] } },
  },
});
