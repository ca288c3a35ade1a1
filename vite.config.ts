import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

export default defineConfig({
  root: 'src/web',
  plugins: [react()],
  build: {
    outDir: '../../dist/web',
    emptyOutDir: true,
  },
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
});
