/** The newest modification time of `path`: a file's own, a folder's newest below it, its own included. */
export function newestUnder(path: string): number;
/** True when every one of `outputs` exists and none of `sources` (files or folders) is newer than it. */
export function builtSince(outputs: readonly string[], sources: readonly string[]): boolean;
