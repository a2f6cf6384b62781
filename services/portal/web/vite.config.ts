import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

// The portal's front end: Preact (3 kB, React's API) built by Vite into ../dist, which the
// portal server serves: hashed file names cached for a year, and a manifest the server reads
// to find the entry. No HTML here: the server writes the page (its headers depend on the link).
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/',
  esbuild: { jsx: 'automatic', jsxImportSource: 'preact' },
  build: {
    outDir: fileURLToPath(new URL('../dist', import.meta.url)),
    emptyOutDir: true,
    manifest: true,
    target: 'es2022',
    assetsInlineLimit: 0,
    rollupOptions: { input: fileURLToPath(new URL('./src/main.tsx', import.meta.url)) },
  },
});
