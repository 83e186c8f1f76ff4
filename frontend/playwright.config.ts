import { defineConfig } from '@playwright/test'

// Browser end-to-end tests: Debian's Chromium drives the dev-tag binary,
// which serves the built frontend and Wails' real IPC (bound calls, events)
// on -devserver. Never `npx playwright install`: only executablePath is used.
// BROWSER=/bin/true: a page the app opens (a sign-in) opens nowhere; the
// tests open it in their own browser.
// Both below Linux's ephemeral range (32768-60999): a fixed port in it may
// be the local end of another connection when a test listens.
export const OLLAMA_PORT = 31199
const port = 31115

export default defineConfig({
  testDir: './e2e',
  timeout: 180_000,
  workers: 1,
  reporter: [['list']],
  use: {
    baseURL: `http://127.0.0.1:${port}`,
    browserName: 'chromium',
    headless: true,
    launchOptions: {
      executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    },
  },
  webServer: {
    command:
      `rm -rf ../build/e2e-data ../build/e2e-home && mkdir -p ../build/e2e-home && ` +
      `HOME=$(realpath ../build/e2e-home) OLLAMA_HOST=http://127.0.0.1:${OLLAMA_PORT} SHRIMP_DATA_DIR=../build/e2e-data BROWSER=/bin/true ` +
      `xvfb-run -a -s '-screen 0 1280x800x24' ../build/shrimp-dev -devserver 127.0.0.1:${port} -assetdir dist -loglevel Warning`,
    url: `http://127.0.0.1:${port}`,
    timeout: 90_000,
    reuseExistingServer: false,
    stdout: 'ignore',
    stderr: 'pipe',
  },
  // The tests share one data folder (the server above). The accessibility
  // audit runs after the others: its runs add sessions that they count.
  projects: [
    { name: 'app', testIgnore: /a11y\.spec\.ts/ },
    { name: 'a11y', testMatch: /a11y\.spec\.ts/, dependencies: ['app'] },
  ],
})
