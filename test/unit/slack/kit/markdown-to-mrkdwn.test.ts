import { describe, expect, it } from 'vitest';
import { markdownToMrkdwn } from '../../../../src/slack/kit/mrkdwn/markdown-to-mrkdwn.js';
import { hostileMarkdown } from '../../../helpers/hostile-markdown.js';

const md = markdownToMrkdwn;

describe('markdownToMrkdwn: inline formatting', () => {
  it('converts bold, italic and strikethrough', () => {
    expect(md('**bold** and __bold__')).toBe('*bold* and *bold*');
    expect(md('*italic* and _italic_')).toBe('_italic_ and _italic_');
    expect(md('~~gone~~')).toBe('~gone~');
    expect(md('***both***')).toBe('*_both_*');
    expect(md('**bold _and italic_ inside**')).toBe('*bold _and italic_ inside*');
  });

  it('leaves lone or intraword markers as text', () => {
    expect(md('snake_case_name')).toBe('snake_case_name');
    expect(md('2 * 3 * 4')).toBe('2 * 3 * 4');
    expect(md('**not closed')).toBe('**not closed');
    expect(md('a ~ b')).toBe('a ~ b');
  });

  it('honours backslash escapes', () => {
    expect(md('\\*not italic\\*')).toBe('*not italic*');
    expect(md('\\<!channel\\>')).toBe('&lt;!channel&gt;');
  });

  it('keeps code spans untouched by other rules, but escaped', () => {
    expect(md('use `**x**` and `a<b>&c`')).toBe('use `**x**` and `a&lt;b&gt;&amp;c`');
    expect(md('`[x](https://a.example)`')).toBe('`[x](https://a.example)`');
    expect(md('``a ` b``')).toBe('`a ˋ b`');
    expect(md('unclosed `code')).toBe('unclosed `code');
  });
});

describe('markdownToMrkdwn: links', () => {
  it('turns http, https and mailto links into Slack links with an escaped label', () => {
    expect(md('[docs](https://example.com/a?b=1&c=2)')).toBe('<https://example.com/a?b=1&amp;c=2|docs>');
    expect(md('[mail](mailto:a@example.com)')).toBe('<mailto:a@example.com|mail>');
    expect(md('[a <b> & c](http://x.example)')).toBe('<http://x.example|a &lt;b&gt; &amp; c>');
    expect(md('[**bold** label](https://x.example "title")')).toBe('<https://x.example|*bold* label>');
    expect(md('[wiki](https://en.wikipedia.org/wiki/Foo_(bar))')).toBe('<https://en.wikipedia.org/wiki/Foo_(bar)|wiki>');
    expect(md('[sp](<https://x.example/a b>)')).toBe('<https://x.example/a%20b|sp>');
  });

  it('keeps a | in a URL from ending it', () => {
    expect(md('[x](https://x.example/a|b)')).toBe('<https://x.example/a%7Cb|x>');
  });

  it('leaves other schemes as plain escaped text', () => {
    expect(md('[click](javascript:alert(1))')).toBe('click (javascript:alert(1))');
    expect(md('[x](<!channel>)')).toBe('x (!channel)');
    expect(md('[x](a<!channel>b)')).toBe('x (a&lt;!channel&gt;b)');
    expect(md('[rel](/docs/a)')).toBe('rel (/docs/a)');
    expect(md('![diagram](data:image/png;base64,AAA)')).toBe('diagram (data:image/png;base64,AAA)');
  });

  it('links autolinks and bare URLs, without their trailing punctuation', () => {
    expect(md('see <https://a.example/x>')).toBe('see <https://a.example/x>');
    expect(md('see https://a.example/x_y_z.')).toBe('see <https://a.example/x_y_z>.');
    expect(md('(https://a.example/x)')).toBe('(<https://a.example/x>)');
  });

  it('does not nest links', () => {
    expect(md('[see https://a.example](https://b.example)')).toBe('<https://b.example|see https://a.example>');
  });

  it('leaves unfinished link syntax as text', () => {
    expect(md('[x](https://a.example')).toBe('[x](<https://a.example>');
    expect(md('[only brackets]')).toBe('[only brackets]');
  });
});

describe('markdownToMrkdwn: blocks', () => {
  it('turns headings into bold lines, without doubled stars', () => {
    expect(md('# Title')).toBe('*Title*');
    expect(md('### **Bold** title ###')).toBe('*Bold title*');
    expect(md('#hashtag')).toBe('#hashtag');
  });

  it('turns bullet and task lists into bullets, keeping nesting', () => {
    expect(md('- one\n* two\n+ three')).toBe('• one\n• two\n• three');
    expect(md('- top\n  - nested\n    - deeper')).toBe('• top\n    ◦ nested\n        • deeper');
    expect(md('- [ ] todo\n- [x] done')).toBe('☐ todo\n☑ done');
    expect(md('1. first\n2) second')).toBe('1. first\n2. second');
    expect(md('- **bold** item')).toBe('• *bold* item');
  });

  it('keeps fenced code verbatim (escaped), without the language', () => {
    expect(md('```ts\nconst a = x < 1 && **y**;\n```')).toBe('```\nconst a = x &lt; 1 &amp;&amp; **y**;\n```');
    expect(md('~~~\n<!channel>\n~~~')).toBe('```\n&lt;!channel&gt;\n```');
    expect(md('- item\n  ```\n  indented\n  ```')).toBe('• item\n```\nindented\n```');
  });

  it('closes an unclosed fence and defuses ``` inside code', () => {
    expect(md('```\nnever closed')).toBe('```\nnever closed\n```');
    expect(md('````\n```\n````')).toBe('```\n`\u200b`\u200b`\n```');
  });

  it('converts quotes and rules', () => {
    expect(md('> quoted **text**')).toBe('> quoted *text*');
    expect(md('> > nested')).toBe('> nested');
    expect(md('---')).toBe('──────────');
  });

  it('escapes everything a model could use to notify', () => {
    const out = md('Hey <!channel> and <@U123> and <!subteam^S1> & <!here>\n- <!everyone>\n# <@W999>');
    expect(out).not.toMatch(/<[!@#]/);
    expect(out).toContain('&lt;!channel&gt;');
  });

  // Hostile input: the table at the end of the file.
  it('handles CRLF line endings', () => {
    expect(md('a\r\n**b**')).toBe('a\n*b*');
  });
});

describe('markdownToMrkdwn: CommonMark and GitHub structure', () => {
  it('writes tables as lines of cells, the header in bold', () => {
    expect(md('| a | b |\n|---|---|\n| 1 | **2** |')).toBe('*a* | *b*\n1 | *2*');
  });

  it('resolves reference links and drops their definitions', () => {
    expect(md('See [the docs][d].\n\n[d]: https://d.example "t"')).toBe('See <https://d.example|the docs>.');
    expect(md('[bad][d]\n\n[d]: javascript:alert(1)')).toBe('bad (javascript:alert(1))');
  });

  it('keeps indented code, raw HTML and footnotes as escaped text', () => {
    expect(md('    indented <b>')).toBe('```\nindented &lt;b&gt;\n```');
    expect(md('<div>\n<!channel>\n</div>')).toBe('&lt;div&gt;\n&lt;!channel&gt;\n&lt;/div&gt;');
    expect(md('[^1]\n\n[^1]: <!here>')).toBe('[^1]\n\n[^1]: &lt;!here&gt;');
  });

  it('keeps paragraphs apart by one blank line and a list item\'s later paragraphs under it', () => {
    expect(md('one\nstill one\n\n\n\ntwo')).toBe('one\nstill one\n\ntwo');
    expect(md('- item\n\n  second para\n- next')).toBe('• item\n\n  second para\n• next');
    expect(md('3. three\n4. four')).toBe('3. three\n4. four');
  });

  it('links bare e-mail addresses and www. hosts', () => {
    expect(md('a@b.example or www.example.com')).toBe('<mailto:a@b.example|a@b.example> or <http://www.example.com|www.example.com>');
  });
});

describe('markdownToMrkdwn: plain lines', () => {
  // After a first paragraph the line goes through the parser whatever it is, so each case checks
  // that the parser reads it as the text it is, and that the line on its own comes out the same.
  const parsed = (line: string) => md(`x\n\n${line}`).slice('x\n\n'.length);
  const pieces = ['Deleted', 'c42', '1.', '-', '--', ':', ';', ',', '?', "'", '"', 'www.', 'ok.', 'A', 'z9', ' ', '  '];

  it('come out as the parser reads them', () => {
    const cases = ['Deleted c1.', 'Done: 3 of 4 records; next?', 'It\'s "fine" - really', 'Refund 42 - 17 = 25', 'a', 'Visit www.example.com today', 'Ok ', '1. first'];
    let seed = 7;
    const next = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31);
    for (let i = 0; i < 500; i++) {
      cases.push(Array.from({ length: 1 + (next() % 8) }, () => pieces[next() % pieces.length]!).join(next() % 2 ? ' ' : ''));
    }
    for (const line of cases) expect(md(line), JSON.stringify(line)).toBe(parsed(line));
  });
});

describe('markdownToMrkdwn: hostile input', () => {
  // 50 KB is past every bound in parse-units.ts (MAX_UNIT 20,000, MAX_BLOCK 3,000), and past the
  // 20 KB at which micromark alone overflows the stack on nested containers; 200 KB cost this file
  // 20 s of a 2-core run and adds no path. How the time grows with the input (linear, not
  // quadratic) is measured on 50 and 200 KB in `npm run bench -- --only timings`.
  const size = 50_000;
  for (const [name, make] of Object.entries(hostileMarkdown)) {
    it(`converts 50 KB of ${name} without overflowing the stack`, () => {
      expect(md(make(size)).length).toBeGreaterThan(0);
    }, 120_000);
  }
});
