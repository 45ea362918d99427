// Serves dist/ on 127.0.0.1 and prints the URL. Used by `npm start` and by the browser tests.
//   node scripts/serve.mjs [--port 8080] [--dir dist]
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import sirv from 'sirv';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export function serve({ dir = path.join(root, 'dist'), port = 8080, host = '127.0.0.1', headers = {} } = {}) {
  const files = sirv(dir, { dev: true, etag: true });
  const server = http.createServer((req, res) => {
    for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
    files(req, res, () => {
      res.statusCode = 404;
      res.end('not found');
    });
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      const { port: bound } = server.address();
      resolve({ server, url: `http://${host}:${bound}/`, close: () => new Promise((done) => server.close(done)) });
    });
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const option = (name, fallback) => {
    const at = process.argv.indexOf(`--${name}`);
    return at > 0 ? process.argv[at + 1] : fallback;
  };
  const port = Number(option('port', process.env.PORT || 8080));
  const dir = path.resolve(option('dir', path.join(root, 'dist')));
  try {
    const { url } = await serve({ dir, port });
    console.log(`Attention Lab is served from ${path.relative(process.cwd(), dir) || '.'} at ${url}`);
    console.log('Press Ctrl+C to stop.');
  } catch (error) {
    const hint = error.code === 'EADDRINUSE' ? ` (port ${port} is taken: try PORT=8081 npm start)` : '';
    console.error(`serve: ${error.message}${hint}`);
    process.exit(1);
  }
}
