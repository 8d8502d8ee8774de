// Preloaded into the alto bundler by startAlto (node --import): alto 0.0.20 hard-codes
// listen({ host: '0.0.0.0' }) and has no host flag; this keeps its RPC server on loopback.
import net from 'node:net';

const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function loopbackListen(...args) {
  const [first] = args;
  if (first !== null && typeof first === 'object' && 'port' in first) args[0] = { ...first, host: '127.0.0.1' };
  else if (typeof first === 'number') args.splice(1, typeof args[1] === 'string' ? 1 : 0, '127.0.0.1');
  return listen.apply(this, args);
};
