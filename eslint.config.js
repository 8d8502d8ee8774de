// npm run lint (also part of npm test): typescript-eslint with type information, plus the import
// boundaries the layout depends on.
import tseslint from 'typescript-eslint';

const serverOnly = ['@wallet/db', '@wallet/db/*', '@wallet/chains', '@wallet/chains/*', 'express', 'pg', '@prisma/*', '@electric-sql/*'];

export default tseslint.config(
  {
    ignores: ['**/node_modules/**', '**/dist/**', '**/.next/**', '**/generated/**', 'apps/admin/next-env.d.ts', 'e2e/artifacts/**', '**/*.cjs', '**/*.mjs', '**/*.js'],
  },
  {
    files: ['**/*.ts', '**/*.tsx'],
    extends: [tseslint.configs.base],
    languageOptions: {
      parserOptions: { projectService: { allowDefaultProject: ['vitest.shared.ts', 'apps/admin/vitest.config.ts'] }, tsconfigRootDir: import.meta.dirname },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: false }],
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports', disallowTypeAnnotations: false }],
      'no-debugger': 'error',
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
      eqeqeq: ['error', 'always', { null: 'ignore' }],
    },
  },
  {
    // The domain holds the use cases: no HTTP framework, no database client, no chain SDK wiring.
    files: ['packages/domain/src/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        { patterns: [{ group: serverOnly, message: 'packages/domain talks to stores and chains through its ports (ports.ts), never to db, express or chains code.' }] },
      ],
    },
  },
  {
    // The console runs in the browser: types of the API's router only, never server code.
    files: ['apps/admin/src/**/*.ts', 'apps/admin/src/**/*.tsx'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: [...serverOnly, 'node:*'], message: 'The console imports no server code.' },
            { group: ['@wallet/api', '@wallet/api/*', '@trpc/server'], allowTypeImports: true, message: 'The console may import only types from the API.' },
          ],
        },
      ],
    },
  },
  {
    // Production code never loads the local devnets (tests, benches and the local-mode wiring may).
    files: ['apps/api/src/**/*.ts', 'packages/db/src/**/*.ts', 'packages/chains/src/gateways/**/*.ts', 'packages/chains/src/registry.ts', 'packages/chains/src/index.ts'],
    ignores: ['**/*.test.ts', '**/testing/**', 'apps/api/src/local/**', 'apps/api/src/cli/faucet.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              // evm/sponsorship holds the sponsored user operations production runs; only its deployment is devnet code.
              group: ['@wallet/chains/devnets', '**/solana/*', '**/evm/*.ts', '**/evm/yield/*', '**/evm/artifacts/*', '**/evm/sponsorship/deploy*', '**/evm/sponsorship/artifacts*'],
              message: 'Devnet code loads only in local mode (apps/api/src/local/devnets.ts).',
            },
          ],
        },
      ],
    },
  },
);
