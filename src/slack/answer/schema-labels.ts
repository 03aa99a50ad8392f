import type { z } from 'zod';

/**
 * What a person is shown for a resume schema field: its `.meta({ title })`, else its
 * `.describe()` text, else the key humanised (`deployNow` → "Deploy now"). The description is
 * a hint only when the title took the label, so the same words are not shown twice.
 */
export function fieldLabel(key: string, schemas: readonly z.ZodType[]): { label: string; hint?: string } {
  let title: string | undefined;
  let description: string | undefined;
  for (const schema of schemas) {
    const meta = schema.meta() as { title?: unknown; description?: unknown } | undefined;
    if (title === undefined && typeof meta?.title === 'string' && meta.title.trim() !== '') title = meta.title.trim();
    const text = schema.description ?? (typeof meta?.description === 'string' ? meta.description : undefined);
    if (description === undefined && text !== undefined && text.trim() !== '') description = text.trim();
  }
  if (title !== undefined) return { label: title, ...(description !== undefined ? { hint: description } : {}) };
  if (description !== undefined) return { label: description };
  return { label: humaniseKey(key) };
}

/** `deployNow`, `deploy_now`, `deploy-now` → "Deploy now"; acronyms stay as written (`apiURL` → "Api URL"). */
export function humaniseKey(key: string): string {
  const words = key
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .split(/[\s_\-.]+/)
    .filter((w) => w !== '');
  if (words.length === 0) return key;
  const text = words.map((w, i) => (i > 0 && /^[A-Z][a-z]/.test(w) ? w.toLowerCase() : w)).join(' ');
  return text.charAt(0).toUpperCase() + text.slice(1);
}
