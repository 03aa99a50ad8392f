import { readdirSync, readFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { extname, join } from 'node:path';
import { packagePath } from '../package-path.js';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
};

/**
 * The UI's files (src/sandbox/public, which the package ships as they are), read once at start and
 * served by exact name only: a request path is a key in this map, never joined onto the file
 * system, so no path can reach outside the folder.
 */
export function staticFiles(dir = packagePath('src/sandbox/public')): (path: string, res: ServerResponse) => boolean {
  const files = new Map<string, { body: Buffer; type: string }>();
  for (const name of readdirSync(dir)) {
    const type = TYPES[extname(name)];
    if (type) files.set(`/${name}`, { body: readFileSync(join(dir, name)), type });
  }
  const index = files.get('/index.html');
  if (index) files.set('/', index);
  return (path, res) => {
    const file = files.get(path);
    if (!file) return false;
    res.writeHead(200, { 'content-type': file.type, 'cache-control': 'no-cache', 'x-content-type-options': 'nosniff' });
    res.end(file.body);
    return true;
  };
}
