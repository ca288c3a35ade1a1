import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';
import { mantineCss } from './scripts/vite-mantine-css.js';
import { zodSansJsonSchema } from './scripts/vite-zod-sans-json-schema.js';

// `vite build`: the browser's files into dist/web (with a manifest: which CSS each page's chunk needs).
// `vite build --ssr entry-server.tsx`: the prerender's module into dist/prerendu, which
// scripts/prerender.ts runs to write the first screens' HTML (npm run build:web).
export default defineConfig(({ isSsrBuild }) => ({
  root: 'src/web',
  plugins: [react(), mantineCss(), zodSansJsonSchema()],
  build: isSsrBuild
    ? { outDir: '../../dist/prerendu', emptyOutDir: true, copyPublicDir: false }
    : { outDir: '../../dist/web', emptyOutDir: true, manifest: true },
  server: {
    proxy: {
      '/app/api': {
        target: 'http://127.0.0.1:3000',
        // The API takes writes with a session only from PUBLIC_URL's origin (http://localhost:3000 by
        // default): the dev server's pages stand in for the site's own.
        configure: (proxy) => {
          proxy.on('proxyReq', (req) => {
            if (req.getHeader('origin')) req.setHeader('origin', process.env.PUBLIC_URL ?? 'http://localhost:3000');
          });
        },
      },
    },
  },
}));
