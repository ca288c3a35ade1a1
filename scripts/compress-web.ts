// After `vite build`: writes .br and .gz beside each text asset of dist/web, so the server sends
// compressed files without compressing on every request (@fastify/static `preCompressed`).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

const WEB = fileURLToPath(new URL('../dist/web/', import.meta.url));
const TEXT = /\.(?:js|css|html|svg|json|txt)$/u;

let files = 0;
for (const entry of fs.readdirSync(WEB, { recursive: true, withFileTypes: true })) {
  if (!entry.isFile() || !TEXT.test(entry.name)) continue;
  const file = path.join(entry.parentPath, entry.name);
  const content = fs.readFileSync(file);
  fs.writeFileSync(`${file}.br`, brotliCompressSync(content, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }));
  fs.writeFileSync(`${file}.gz`, gzipSync(content, { level: 9 }));
  files += 1;
}
console.log(`compressed ${files} web files (brotli and gzip)`);
