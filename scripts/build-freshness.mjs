/**
 * Whether a build is current with its sources: no source (a file, or a folder, whose time changes
 * when a file in it is added or removed) newer than any of the files the build rewrites each time
 * it has something to do. The check `tsc --build` makes against its build info.
 *
 * `npm start` (scripts/start.mjs) asks it before choosing the build over the sources, and the
 * tests that use the package by name before building it; plain JavaScript, as the first runs
 * before tsx is loaded.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** The newest modification time of `path`: a file's own, a folder's newest below it, its own included. */
export function newestUnder(path) {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const entry of readdirSync(path)) newest = Math.max(newest, newestUnder(join(path, entry)));
  return newest;
}

/** True when every one of `outputs` exists and none of `sources` (files or folders) is newer than it. */
export function builtSince(outputs, sources) {
  if (!outputs.every((output) => existsSync(output))) return false;
  const newestSource = Math.max(...sources.map(newestUnder));
  return outputs.every((output) => statSync(output).mtimeMs >= newestSource);
}
