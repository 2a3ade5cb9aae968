/**
 * The cluster tests' mixed load as a process of its own, for a cluster in a network namespace: `node
 * load-runner.js <url>` runs `runMixedLoad` on `<url>` until its stdin ends, then prints one JSON line:
 * each load's name, counts and resets split by `resetsAtListenerClose`. It prints `{"started":true}` first.
 */
import { resetsAtListenerClose, runMixedLoad } from '../support/load-client.js';
import type { LoadSample } from '../support/load-client.js';

const stop = new AbortController();
process.stdin.resume().on('end', () => stop.abort());
const samples = { keepAlive: [] as LoadSample[], perRequest: [] as LoadSample[] };
const load = runMixedLoad(process.argv[2]!, stop.signal, samples);
console.log(JSON.stringify({ started: true }));
const [keepAlive, perRequest] = await load;
console.log(JSON.stringify([
  { name: keepAlive![0], counts: keepAlive![1], resets: resetsAtListenerClose(samples.keepAlive) },
  { name: perRequest![0], counts: perRequest![1], resets: resetsAtListenerClose(samples.perRequest) },
]));
