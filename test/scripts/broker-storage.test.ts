import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { formatStorage, kafkaLibs } from '../../scripts/kafka/broker';

jest.setTimeout(60_000);

describe('the test broker formats its storage', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'krt-storage-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('for a cluster id that begins with "-", which the storage tool must not read as an option', () => {
    const config = path.join(dir, 'server.properties');
    writeFileSync(
      config,
      [
        'process.roles=broker,controller',
        'node.id=1',
        'controller.quorum.voters=1@127.0.0.1:1',
        'listeners=PLAINTEXT://127.0.0.1:2,CONTROLLER://127.0.0.1:1',
        'controller.listener.names=CONTROLLER',
        `log.dirs=${path.join(dir, 'data')}`,
        '',
      ].join('\n'),
    );
    formatStorage({ libs: kafkaLibs(), config, clusterId: '-AbCdEfGhIjKlMnOpQrStU' });
    expect(readFileSync(path.join(dir, 'data', 'meta.properties'), 'utf8')).toContain('cluster.id=-AbCdEfGhIjKlMnOpQrStU');
  });
});
