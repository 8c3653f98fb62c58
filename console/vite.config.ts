/**
 * Builds the web console into `console/dist` (`make console`). Asset paths are relative
 * (`base: './'`): the service writes a `<base href>` for SVC_PUBLIC_PREFIX into
 * index.html when it serves it (adapters/http/console.routes.ts), so one build serves
 * under any prefix.
 */
import react from '@vitejs/plugin-react';
import { defineConfig, type Plugin } from 'vite';

/**
 * index.html names main.tsx's chunk as a module to preload: src/boot.ts imports it only
 * after starting the first reads, and the browser should be fetching it meanwhile rather
 * than after (bench/console-case-list.ts).
 */
function preloadMain(): Plugin {
  return {
    name: 'svc-preload-main',
    transformIndexHtml: {
      order: 'post',
      handler(_html, context) {
        const main = Object.values(context.bundle ?? {}).find(
          (output) => output.type === 'chunk' && output.isDynamicEntry && output.moduleIds.some((id) => id.endsWith('/src/main.tsx')),
        );
        if (!main) throw new Error('no chunk holds src/main.tsx: boot.ts must import it');
        return [{ tag: 'link', attrs: { rel: 'modulepreload', crossorigin: true, href: `./${main.fileName}` }, injectTo: 'head' }];
      },
    },
  };
}

export default defineConfig({
  root: import.meta.dirname,
  base: './',
  plugins: [react(), preloadMain()],
  build: { outDir: 'dist', emptyOutDir: true, sourcemap: true, chunkSizeWarningLimit: 1024 },
  logLevel: 'warn',
});
