// Vite plugin: each module of the web app that imports components from '@mantine/core' also imports the
// stylesheets of those components (Mantine's per-component files, `@mantine/core/styles/<Name>.layer.css`),
// and of the components they are built on, dependencies first (Mantine's documented order). Vite then puts
// each page's Mantine CSS in that page's chunk: the first screen carries only the CSS of what it draws,
// instead of all of `@mantine/core/styles.css`. The `.layer.css` files keep Mantine in `@layer mantine`,
// so the app's own CSS modules win over them whatever order the chunks load in.
//
// Which stylesheets a component needs is read from Mantine's own ES modules: the `*.module.mjs` class maps
// reachable by import from the module that exports the component (Button → UnstyledButton, Loader…), shared
// utilities included (Checkbox, Radio and Switch lay out their label with utils/InlineInput).
// The global styles (baseline, CSS variables, global classes) are imported once by src/web/main.tsx.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Plugin } from 'vite';

const require = createRequire(import.meta.url);

function mantineRoot(): string {
  // '@mantine/core' resolves to cjs/index.cjs: the package is two folders up.
  return path.resolve(path.dirname(require.resolve('@mantine/core')), '..');
}

const IMPORT_FROM = /(?:import|export)\s*(?:[\w$*{}\s,]+from\s*)?["'](\.{1,2}\/[^"']+\.mjs)["']/gu;

/** For each component name exported by '@mantine/core', its stylesheet names in dependency order. */
export function mantineStylesheets(): Map<string, string[]> {
  const root = mantineRoot();
  const esm = path.join(root, 'esm');
  const index = fs.readFileSync(path.join(esm, 'index.mjs'), 'utf8');
  const exportFile = new Map<string, string>();
  for (const m of index.matchAll(/import\s*\{([^}]+)\}\s*from\s*["'](\.\/components\/[^"']+\.mjs)["']/gu)) {
    for (const part of m[1]!.split(',')) {
      const name = part.trim().split(/\s+as\s+/u).pop()!.trim();
      if (name) exportFile.set(name, path.join(esm, m[2]!));
    }
  }
  const stylesDir = path.join(root, 'styles');
  const imports = new Map<string, string[]>();
  const importsOf = (file: string): string[] => {
    let list = imports.get(file);
    if (!list) {
      const code = fs.readFileSync(file, 'utf8');
      list = [...code.matchAll(IMPORT_FROM)].map((m) => path.resolve(path.dirname(file), m[1]!)).filter((f) => f.startsWith(path.join(esm, 'components')) || f.startsWith(path.join(esm, 'utils')));
      imports.set(file, list);
    }
    return list;
  };
  const styleOf = (file: string): string | null => {
    const base = path.basename(file).match(/^(.+)\.module\.mjs$/u)?.[1];
    return base && fs.existsSync(path.join(stylesDir, `${base}.layer.css`)) ? base : null;
  };
  // The stylesheets reachable from a module, and which modules own (import the class map of) each one.
  const reachable = new Map<string, Set<string>>();
  const owners = new Map<string, Set<string>>();
  const reach = (file: string, stack = new Set<string>()): Set<string> => {
    const known = reachable.get(file);
    if (known) return known;
    const out = new Set<string>();
    if (stack.has(file)) return out;
    stack.add(file);
    for (const dep of importsOf(file)) {
      const sheet = styleOf(dep);
      if (sheet) {
        out.add(sheet);
        if (!owners.has(sheet)) owners.set(sheet, new Set());
        owners.get(sheet)!.add(file);
      } else {
        for (const s of reach(dep, stack)) out.add(s);
      }
    }
    stack.delete(file);
    reachable.set(file, out);
    return out;
  };
  // A stylesheet comes after the ones of the components its own component renders (dependencies first).
  const sheetsOf = (entry: string): string[] => {
    const wanted = reach(entry);
    const out: string[] = [];
    const visiting = new Set<string>();
    const visit = (sheet: string) => {
      if (out.includes(sheet) || visiting.has(sheet)) return;
      visiting.add(sheet);
      for (const owner of owners.get(sheet) ?? []) for (const dep of reach(owner)) if (dep !== sheet && wanted.has(dep)) visit(dep);
      visiting.delete(sheet);
      out.push(sheet);
    };
    for (const sheet of wanted) visit(sheet);
    return out;
  };
  const result = new Map<string, string[]>();
  for (const [name, file] of exportFile) result.set(name, sheetsOf(file));
  return result;
}

const MANTINE_IMPORT = /import\s*\{([^}]*)\}\s*from\s*["']@mantine\/core["']/gu;

/** The stylesheet imports a module needs for the '@mantine/core' components it imports (exported for tests). */
export function stylesheetImports(code: string, sheets: Map<string, string[]>): string[] {
  const wanted: string[] = [];
  for (const m of code.matchAll(MANTINE_IMPORT)) {
    for (const part of m[1]!.split(',')) {
      const spec = part.trim();
      if (!spec || spec.startsWith('type ')) continue;
      const name = spec.split(/\s+as\s+/u)[0]!.trim();
      for (const sheet of sheets.get(name) ?? []) if (!wanted.includes(sheet)) wanted.push(sheet);
    }
  }
  return wanted.map((sheet) => `@mantine/core/styles/${sheet}.layer.css`);
}

export function mantineCss(): Plugin {
  let sheets: Map<string, string[]> | null = null;
  return {
    name: 'quartier-vivant:mantine-css',
    enforce: 'pre',
    transform(code, id) {
      if (id.includes('node_modules') || !/\.[jt]sx?$/u.test(id.split('?')[0]!) || !code.includes('@mantine/core')) return null;
      sheets ??= mantineStylesheets();
      const list = stylesheetImports(code, sheets);
      if (list.length === 0) return null;
      return { code: `${list.map((s) => `import '${s}';`).join('\n')}\n${code}`, map: null };
    },
  };
}
