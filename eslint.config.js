import js from '@eslint/js';
import { createNodeResolver, importX } from 'eslint-plugin-import-x';
import jsxA11y from 'eslint-plugin-jsx-a11y';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import tseslint from 'typescript-eslint';

/** The web's features (src/web/features/*): each imports lib/, components/ and the domain, never another feature. */
const WEB_FEATURES = ['accueil', 'compte', 'demandes', 'informations', 'securite', 'technique'];

const ZOD_ONCE = { name: 'zod', message: "Importez z depuis src/domain/zod.ts : c'est lui qui règle les messages en français." };

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'data/', 'e2e/screenshots/', 'test-results/', 'playwright-report/', '.ci/out/', '.stryker-tmp/', 'reports/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },

  // Direction of dependencies (DESIGN.md layout), checked on resolved files: domain → web lib/components →
  // web features → web app; web and server never import each other; features never import each other.
  {
    files: ['**/*.{js,ts,tsx}'],
    plugins: { 'import-x': importX },
    settings: {
      'import-x/extensions': ['.ts', '.tsx', '.js'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts', '.tsx'] },
      // Sources import `./x.js` for `./x.ts` (NodeNext): the built-in resolver maps the extension, no TypeScript resolver needed.
      'import-x/resolver-next': [createNodeResolver({ extensions: ['.ts', '.tsx', '.js', '.json'], extensionAlias: { '.js': ['.ts', '.tsx', '.js'] } })],
    },
    rules: {
      'import-x/no-cycle': 'error',
      'import-x/no-restricted-paths': [
        'error',
        {
          zones: [
            {
              target: './src/domain',
              from: '.',
              except: ['./src/domain', './node_modules'],
              message: 'src/domain reste pur : il ne dépend que de lui-même (et de zod).',
            },
            { target: './src/web', from: './src/server', message: 'Le web ne dépend pas du serveur.' },
            { target: './src/server', from: './src/web', message: 'Le serveur ne dépend pas du web.' },
            {
              target: ['./src/web/lib', './src/web/components'],
              from: ['./src/web/features', './src/web/app'],
              message: 'lib/ et components/ sont partagés : ils ne dépendent ni des features ni de app/.',
            },
            { target: './src/web/lib', from: './src/web/components', message: 'lib/ ne dépend pas des composants.' },
            ...WEB_FEATURES.map((feature) => ({
              target: `./src/web/features/${feature}`,
              from: './src/web/features',
              except: [`./${feature}`],
              message: "Une feature n'importe pas une autre feature : passez par lib/, components/ ou le domaine.",
            })),
          ],
        },
      ],
    },
  },
  // zod is configured once (French messages) in src/domain/zod.ts: everyone imports `z` from there.
  {
    files: ['src/domain/**'],
    ignores: ['src/domain/zod.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [ZOD_ONCE],
          patterns: [{ group: ['node:*'], message: 'src/domain reste pur : ni I/O, ni serveur, ni web.' }],
        },
      ],
    },
  },
  {
    files: ['src/server/**'],
    rules: { 'no-restricted-imports': ['error', { paths: [ZOD_ONCE] }] },
  },

  // The web app: React hooks rules (the v7 recommended set, compiler-based rules included) and accessibility.
  {
    files: ['src/web/**/*.{ts,tsx}'],
    ...reactHooks.configs.flat.recommended,
    ...jsxA11y.flatConfigs.recommended,
    plugins: { ...reactHooks.configs.flat.recommended.plugins, ...jsxA11y.flatConfigs.recommended.plugins },
    languageOptions: { ...jsxA11y.flatConfigs.recommended.languageOptions, globals: { ...globals.browser } },
    rules: {
      ...reactHooks.configs.flat.recommended.rules,
      ...jsxA11y.flatConfigs.recommended.rules,
      // Warnings nobody reads are no rules: what the recommended set only warns about fails here.
      'react-hooks/exhaustive-deps': 'error',
      'react-hooks/incompatible-library': 'error',
      'react-hooks/unsupported-syntax': 'error',
      'no-restricted-imports': ['error', { paths: [ZOD_ONCE] }],
      // Every query key comes from lib/queryKeys.ts.
      'no-restricted-syntax': [
        'error',
        { selector: "Property[key.name='queryKey'] > ArrayExpression", message: 'Les clés de requête viennent de cles (src/web/lib/queryKeys.ts).' },
      ],
    },
  },
  {
    files: ['src/web/lib/queryKeys.ts'],
    rules: { 'no-restricted-syntax': 'off' },
  },
);
