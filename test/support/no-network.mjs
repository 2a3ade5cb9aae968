// A preload (`node --import ./test/support/no-network.mjs …`) that makes every DNS lookup of the process
// fail with ENOTFOUND, as on a machine without a network, so that a test of what a program does offline
// gives the same result on a machine that has one.
import dns from 'node:dns';

dns.lookup = (hostname, options, callback) => {
  const done = typeof options === 'function' ? options : callback;
  process.nextTick(done, Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND', syscall: 'getaddrinfo', hostname }));
};
