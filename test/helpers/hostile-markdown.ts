/**
 * Markdown that is quadratic (or overflows the stack) in micromark unless parse-units.ts bounds it,
 * by name, at a given size in characters: the unit test converts each, the timings bench times it.
 */
export const hostileMarkdown: Record<string, (n: number) => string> = {
  'unclosed link openers': (n) => '[a]('.repeat(n / 4),
  'bracket pairs without definitions': (n) => '[a]'.repeat(n / 3),
  'unmatched emphasis runs': (n) => '*_~'.repeat(n / 3),
  'deeply nested emphasis': (n) => '*_'.repeat(n / 8) + 'x' + '_*'.repeat(n / 8),
  'one deeply nested quote': (n) => '>'.repeat(n),
  'nested quotes with spaces': (n) => '> '.repeat(n / 2),
  'nested ordered lists on one line': (n) => '1. '.repeat(n / 3),
  'nested lists on every line': (n) => ('- '.repeat(50) + 'x\n').repeat(n / 101),
  'unclosed code spans': (n) => '` a '.repeat(n / 4),
  'open emphasis runs': (n) => '_a '.repeat(n / 3) + 'b_',
  'unclosed strong pairs': (n) => '**a **'.repeat(n / 6),
  'emphasis, then unmatched runs, then brackets': (n) => '**a '.repeat(n / 16) + '*_~'.repeat(n / 8) + '['.repeat(n / 4),
};
