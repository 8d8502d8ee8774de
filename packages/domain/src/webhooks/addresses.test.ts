import { describe, expect, it } from 'vitest';
import { checkWebhookUrl, isPublicAddress } from './addresses.ts';

describe('webhook address policy', () => {
  it('refuses loopback, private, link-local and other non-public IPv4 and IPv6 addresses', () => {
    for (const ip of [
      '127.0.0.1',
      '127.255.0.9',
      '10.0.0.1',
      '172.16.0.1',
      '172.31.255.255',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '224.0.0.1',
      '255.255.255.255',
      '::',
      '::1',
      'fe80::1',
      'fe80::1%eth0',
      'fc00::1',
      'fd12:3456:789a::1',
      'ff02::1',
      '::ffff:127.0.0.1',
      '::ffff:7f00:1',
      '::ffff:10.1.2.3',
      '::127.0.0.1',
      '64:ff9b::10.0.0.1',
      '2002:c0a8:0101::1',
      '2001:db8::1',
      'not an ip',
    ]) {
      expect(isPublicAddress(ip), ip).toBe(false);
    }
    for (const ip of ['93.184.216.34', '8.8.8.8', '172.32.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8', '64:ff9b::808:808', '2002:0808:0808::1']) {
      expect(isPublicAddress(ip), ip).toBe(true);
    }
  });

  it('reads every IPv6 text form (full, compressed, dotted IPv4 tail, zone id) and refuses malformed text', () => {
    for (const ip of ['0:0:0:0:0:0:0:1', '0000:0000:0000:0000:0000:0000:0000:0001', 'FE80::1', '0:0:0:0:0:ffff:7f00:1', '::ffff:0:10.0.0.1', '64:ff9b:0:0:0:0:a00:1', '2002:a00:1::', '1::2::3', '1:2:3:4:5:6:7:8:9', '::ffff:1.2.3', '010.0.0.1', '']) {
      expect(isPublicAddress(ip), ip).toBe(false);
    }
    for (const ip of ['1:2:3:4:5:6:7:8', '2606:4700:4700:0:0:0:0:1111', '::ffff:1.2.3.4', '0:0:0:0:0:ffff:102:304', '2606:4700::1111%eth0']) {
      expect(isPublicAddress(ip), ip).toBe(true);
    }
  });

  it('checks configured URLs: HTTPS only, length, credentials; resolution only where private addresses are refused', async () => {
    const resolveHost = async (host: string) => (host === 'inside.example' ? ['10.0.0.1'] : ['93.184.216.34']);
    const strict = { allowPrivateAddresses: false, resolveHost };
    const local = { allowPrivateAddresses: true, resolveHost };
    await expect(checkWebhookUrl('http://example.com/', local)).rejects.toMatchObject({ status: 400, code: 'INVALID_REQUEST' });
    await expect(checkWebhookUrl('ftp://example.com/', local)).rejects.toMatchObject({ status: 400 });
    await expect(checkWebhookUrl('https://user:pw@example.com/', local)).rejects.toMatchObject({ status: 400 });
    await expect(checkWebhookUrl(`https://example.com/${'x'.repeat(2048)}`, local)).rejects.toMatchObject({ status: 400 });
    await expect(checkWebhookUrl('https://127.0.0.1:8443/hooks', local)).resolves.toBeInstanceOf(URL);
    await expect(checkWebhookUrl('https://127.0.0.1:8443/hooks', strict)).rejects.toMatchObject({ status: 400 });
    await expect(checkWebhookUrl('https://inside.example/hooks', strict)).rejects.toMatchObject({ status: 400 });
    await expect(checkWebhookUrl('https://outside.example/hooks', strict)).resolves.toBeInstanceOf(URL);
  });
});
