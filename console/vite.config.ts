/**
 * Builds the web console into `console/dist` (`make console`). Asset paths are relative
 * (`base: './'`): the service writes a `<base href>` for SVC_PUBLIC_PREFIX into
 * index.html when it serves it (adapters/http/console.routes.ts), so one build serves
 * under any prefix.
 */
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

export default defineConfig({
  root: import.meta.dirname,
  base: './',
  plugins: [react()],
  build: { outDir: 'dist', emptyOutDir: true, sourcemap: true, chunkSizeWarningLimit: 1024 },
  logLevel: 'warn',
});
