// The production build's JavaScript for the first load of `/`, gzip-compressed: the entry script of
// dist/web/index.html plus every chunk it imports statically (what the browser fetches before the
// landing page shows). Target: 150 KB at most. Run after `npm run build:web`.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const WEB = fileURLToPath(new URL('../dist/web/', import.meta.url));

/** The entry and its static imports, transitively (dynamic `import()` chunks are left out). */
export function firstLoadScripts(): string[] {
  const html = fs.readFileSync(path.join(WEB, 'index.html'), 'utf8');
  const queue = [...html.matchAll(/<script[^>]+src="\/([^"]+\.js)"/gu), ...html.matchAll(/<link[^>]+rel="modulepreload"[^>]+href="\/([^"]+\.js)"/gu)].map(
    (m) => m[1]!,
  );
  const seen = new Set<string>();
  while (queue.length > 0) {
    const file = queue.shift()!;
    if (seen.has(file)) continue;
    seen.add(file);
    const code = fs.readFileSync(path.join(WEB, file), 'utf8');
    // Static imports only: `import … from "./x.js"` and `import "./x.js"` (not `import("./x.js")`).
    for (const m of code.matchAll(/(?:^|[;\s}])import\s*(?:[\w$*{}\s,]+from\s*)?["']\.\/([^"']+\.js)["']/gu)) {
      queue.push(path.posix.join(path.posix.dirname(file), m[1]!));
    }
  }
  return [...seen];
}

export function printWebSize(): void {
  const files = firstLoadScripts();
  let raw = 0;
  let gz = 0;
  let br = 0;
  for (const f of files) {
    const buf = fs.readFileSync(path.join(WEB, f));
    raw += buf.length;
    gz += gzipSync(buf, { level: 9 }).length;
    // What the server actually sends to browsers that accept brotli (scripts/compress-web.ts).
    br += fs.existsSync(path.join(WEB, `${f}.br`)) ? fs.statSync(path.join(WEB, `${f}.br`)).size : 0;
  }
  const all = fs.readdirSync(path.join(WEB, 'assets')).filter((f) => f.endsWith('.js')).length;
  console.log(
    `web first load of / : ${files.length} script(s), ${(raw / 1024).toFixed(1)} KB, ${(gz / 1024).toFixed(1)} KB gzip (target <= 150 KB), ${(br / 1024).toFixed(1)} KB as served (brotli); ${all} chunks in all, the rest load on demand`,
  );
}

if (import.meta.url === `file://${process.argv[1]}`) printWebSize();
