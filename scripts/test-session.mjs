// Runs a command (the test runner) with one Chromium and one server of each test site shared by every
// test file it starts, and stops them afterwards, also when the command fails or is interrupted:
//   node scripts/test-session.mjs node --test tests/web/ tests/e2e/
// The command finds them in its environment (tests/e2e/browser.mjs reads it): ATTENTION_LAB_BROWSER_WS
// (playwright's endpoint of the Chromium), ATTENTION_LAB_SITES (JSON: each served folder's URL), and
// ATTENTION_LAB_HOST_SITE (the folder of tests/e2e/host-site.mjs: dist/ under /lab/ beside the fixtures).
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

import { serve } from './serve.mjs';
import { CHROMIUM, SHARED_FLAGS } from '../tests/e2e/browser.mjs';
import { makeHostSite } from '../tests/e2e/host-site.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Starts what the run shares; returns its environment and stop(), which is safe to call twice. */
async function startSession() {
  const hostSiteDir = makeHostSite();
  const stoppers = [() => rmSync(hostSiteDir, { recursive: true, force: true })];
  const stop = async () => {
    while (stoppers.length) {
      try {
        await stoppers.pop()();
      } catch (error) {
        console.error(`test-session: stopping: ${error.message}`);
      }
    }
  };
  try {
    const sites = {};
    for (const dir of [path.join(root, 'dist'), hostSiteDir]) {
      const server = await serve({ dir, port: 0 });
      stoppers.push(() => server.close());
      sites[dir] = server.url;
    }
    // the signals are ours to handle (run() passes them on; the command's end stops the browser)
    const browser = await chromium.launchServer({ executablePath: CHROMIUM, args: SHARED_FLAGS, headless: true,
      handleSIGINT: false, handleSIGTERM: false, handleSIGHUP: false });
    stoppers.push(() => browser.close());
    const env = { ATTENTION_LAB_BROWSER_WS: browser.wsEndpoint(), ATTENTION_LAB_SITES: JSON.stringify(sites), ATTENTION_LAB_HOST_SITE: hostSiteDir };
    return { env, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Runs `command` with `env` added; resolves to its exit code (128 + the signal's number when killed). */
function run([command, ...args], env, signals) {
  const child = spawn(command, args, { stdio: 'inherit', env: { ...process.env, ...env } });
  for (const signal of signals) process.on(signal, () => child.kill(signal));
  return new Promise((resolve) => {
    child.on('error', (error) => {
      console.error(`test-session: ${command}: ${error.message}`);
      resolve(127);
    });
    child.on('exit', (code, signal) => resolve(code ?? 128 + os.constants.signals[signal]));
  });
}

if (process.argv.length < 3) {
  console.error('usage: node scripts/test-session.mjs COMMAND [ARGS…]');
  process.exit(2);
}
const session = await startSession();
const code = await run(process.argv.slice(2), session.env, ['SIGINT', 'SIGTERM', 'SIGHUP']);
await session.stop();
process.exit(code);
