// Vite plugin for the browser build: zod's JSON Schema code (core/to-json-schema.js,
// core/json-schema-processors.js, core/json-schema-generator.js) is replaced by small stubs. The domain's
// schemas are shared with the server, which needs zod's classic API (`.meta()`, JSON Schema for its
// serializer and docs), and zod's classic schemas import the JSON Schema code whether or not it is used.
// The browser only validates: it never asks for a JSON Schema, and now does not download the code for it.
// A call to one of these functions in the browser throws, saying why. The server and the prerender (SSR
// build) keep the real modules.
import fs from 'node:fs';
import type { Plugin } from 'vite';

const STUBBED = /[\\/]zod[\\/]v4[\\/]core[\\/](to-json-schema|json-schema-processors|json-schema-generator)\.js$/u;

/** The names a module exports (`export function x`, `export const x`, `export class X`, `export { a, b as c }`). */
function exportedNames(code: string): string[] {
  const names = new Set<string>();
  for (const m of code.matchAll(/export\s+(?:async\s+)?(?:function\*?|const|let|var|class)\s+([\w$]+)/gu)) names.add(m[1]!);
  for (const m of code.matchAll(/export\s*\{([^}]*)\}(?!\s*from)/gu)) {
    for (const part of m[1]!.split(',')) {
      const name = part.trim().split(/\s+as\s+/u).pop()?.trim();
      if (name) names.add(name);
    }
  }
  return [...names];
}

/** The stub of one of zod's JSON Schema modules, with the same exports (exported for tests). */
export function stubOf(code: string): string {
  const lines = [
    `const unavailable = () => { throw new Error('zod JSON Schema is not part of the browser build (scripts/vite-zod-sans-json-schema.ts)'); };`,
  ];
  exportedNames(code).forEach((name, n) => {
    // Local names of our own (`process` is one of zod's export names: no top-level binding of that name).
    const local = `stub${n}`;
    if (name === 'createToJSONSchemaMethod' || name === 'createStandardJSONSchemaMethod') {
      // Called when a schema is built or its `~standard` read: they must return a method, which throws if used.
      lines.push(`const ${local} = () => unavailable;`);
    } else if (name === 'aggregateChecks') {
      // Read by the derived `minLength`/`format`… getters of schemas: no bounds known.
      lines.push(`const ${local} = () => ({});`);
    } else if (name === 'allProcessors') {
      lines.push(`const ${local} = {};`);
    } else {
      lines.push(`const ${local} = unavailable;`);
    }
    lines.push(`export { ${local} as ${name} };`);
  });
  return lines.join('\n');
}

export function zodSansJsonSchema(): Plugin {
  return {
    name: 'quartier-vivant:zod-sans-json-schema',
    apply: 'build',
    enforce: 'pre',
    load(id, options) {
      if (options?.ssr || !STUBBED.test(id)) return null;
      return stubOf(fs.readFileSync(id, 'utf8'));
    },
  };
}
