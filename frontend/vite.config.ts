import { defineConfig, type Plugin } from 'vite'
import { svelte } from '@sveltejs/vite-plugin-svelte'
import { svelteTesting } from '@testing-library/svelte/vite'

// The window shows text from models, pages and tools: in the built app
// nothing in it may load from elsewhere or run (docs/SECURITY.md, "The
// window"). Only the build gets the policy: Vite's dev server (wails dev)
// serves its own scripts and reloads over a socket of its own.
const policy = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "media-src 'none'",
  "object-src 'none'",
  "frame-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ')

function contentSecurityPolicy(): Plugin {
  return {
    name: 'shrimp-csp',
    apply: 'build',
    transformIndexHtml: () => [{ tag: 'meta', attrs: { 'http-equiv': 'Content-Security-Policy', content: policy }, injectTo: 'head-prepend' }],
  }
}

export default defineConfig({
  plugins: [svelte(), svelteTesting(), contentSecurityPolicy()],
  build: { outDir: 'dist', emptyOutDir: true },
  test: {
    environment: 'jsdom',
    include: ['src/**/*.test.ts'],
    setupFiles: ['src/test-setup.ts'],
    // CI runs on a loaded 2-core machine: a test that renders a list of
    // hundreds took 5.6 s there with the default 5 s limit.
    testTimeout: 60_000,
  },
})
