/** Reading a published view (a Home tab, a modal) as a person sees it. */

/** All text of a view's blocks, joined by lines. */
export function viewText(view: { blocks: unknown[] } | undefined): string {
  const parts: string[] = [];
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(walk);
    if (node && typeof node === 'object') {
      const o = node as Record<string, unknown>;
      if ((o.type === 'plain_text' || o.type === 'mrkdwn') && typeof o.text === 'string') parts.push(o.text);
      Object.values(o).forEach(walk);
    }
  };
  walk(view?.blocks ?? []);
  return parts.join('\n');
}
