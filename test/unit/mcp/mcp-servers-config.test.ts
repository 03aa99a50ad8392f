import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '../../../src/config.js';
import { tempDir } from '../../helpers/temp-dir.js';

function file(name: string, text: string): string {
  const path = join(tempDir('mcp-config-'), name);
  writeFileSync(path, text);
  return path;
}

describe('MCP_SERVERS', () => {
  it('is empty when unset', () => {
    expect(parseConfig({}).mcpServers).toEqual([]);
  });

  it('reads stdio and Streamable HTTP servers from YAML, with ${VAR} from the environment', () => {
    const path = file(
      'mcp.yaml',
      [
        'mcpServers:',
        '  github:',
        '    command: npx',
        '    args: [-y, github-mcp]',
        '    env: { GITHUB_TOKEN: "${GH_TOKEN}" }',
        '    agent: ops',
        '  docs:',
        '    url: https://docs.example.com/mcp',
        '    headers: { authorization: "Bearer ${DOCS_TOKEN}" }',
        '    timeoutMs: 30000',
      ].join('\n'),
    );
    const config = parseConfig({ MCP_SERVERS: path, GH_TOKEN: 'ghp_x', DOCS_TOKEN: 'd0cs' });
    expect(config.mcpServers).toEqual([
      { name: 'github', transport: 'stdio', command: 'npx', args: ['-y', 'github-mcp'], env: { GITHUB_TOKEN: 'ghp_x' }, agent: 'ops' },
      { name: 'docs', transport: 'http', url: 'https://docs.example.com/mcp', headers: { authorization: 'Bearer d0cs' }, timeoutMs: 30000 },
    ]);
    expect(Object.isFrozen(config.mcpServers[0])).toBe(true);
  });

  it('reads JSON in the shape other MCP clients use', () => {
    const path = file('mcp.json', JSON.stringify({ mcpServers: { files: { command: 'node', args: ['server.js'], cwd: '/srv' } } }));
    expect(parseConfig({ MCP_SERVERS: path }).mcpServers).toEqual([{ name: 'files', transport: 'stdio', command: 'node', args: ['server.js'], cwd: '/srv' }]);
  });

  const refused = (name: string, text: string, env: Record<string, string> = {}) => {
    const path = file(name, text);
    try {
      parseConfig({ MCP_SERVERS: path, ...env });
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).variable).toBe('MCP_SERVERS');
      expect((error as Error).message).toContain(path);
      return (error as Error).message;
    }
    throw new Error('not refused');
  };

  it('refuses a bad entry, naming the file and the entry', () => {
    expect(refused('a.json', JSON.stringify({ mcpServers: { github: { args: [] } } }))).toMatch(/mcpServers\.github: must be a map with "command"/);
    expect(refused('b.json', JSON.stringify({ mcpServers: { github: { command: 'x', url: 'http://y' } } }))).toMatch(/mcpServers\.github: has both/);
    expect(refused('c.json', JSON.stringify({ mcpServers: { docs: { url: 'ftp://x' } } }))).toMatch(/mcpServers\.docs\.url: must be an http/);
    expect(refused('d.json', JSON.stringify({ mcpServers: { docs: { url: 'https://x', header: {} } } }))).toMatch(/mcpServers\.docs/);
    expect(refused('e.json', JSON.stringify({ mcpServers: { 'my__server': { command: 'x' } } }))).toMatch(/server name "my__server"/);
    expect(refused('f.json', JSON.stringify({ servers: {} }))).toMatch(/mcpServers/);
    expect(refused('g.yaml', 'mcpServers:\n  gh:\n    command: x\n    env: { T: "${MISSING}" }')).toMatch(/mcpServers\.gh\.env\.T: variable MISSING is not set/);
    expect(refused('h.json', '{ nope')).toMatch(/JSON syntax error/);
    expect(refused('i.txt', '{}')).toMatch(/unsupported file type/);
    expect(() => parseConfig({ MCP_SERVERS: '/nonexistent/mcp.json' })).toThrow(/file not found/);
  });
});
