import assert from 'node:assert/strict';
import { test } from 'node:test';
import { booleanOption, checkObject, describeRange, numberOption, stringOption } from '../../src/lib/options.js';
import { AsyncFHIRGateway } from '../../src/gateway/index.js';
import { createServiceAPI } from '../../src/host/index.js';
import { NoteReaderService } from '../../src/soap/index.js';
import { CDSHooksService } from '../../src/cds/index.js';
import { startSandbox } from '../../src/sandbox/index.js';

test('a number option: the default for undefined, TypeError for another type or NaN, RangeError outside its range', () => {
  assert.equal(numberOption(undefined, 'options.n', 7), 7);
  assert.equal(numberOption(3, 'options.n', 7, { integer: true, min: 1 }), 3);
  assert.throws(() => numberOption('3', 'options.n', 7), { name: 'TypeError', message: 'options.n must be a number' });
  assert.throws(() => numberOption(Number.NaN, 'options.n', 7, { unit: 'seconds' }), { name: 'TypeError', message: 'options.n must be a number of seconds' });
  assert.throws(() => numberOption(0, 'options.n', 7, { above: 0 }), { name: 'RangeError', message: 'options.n must be a finite number > 0' });
  assert.throws(() => numberOption(1.5, 'options.n', 7, { integer: true, min: 1 }), { name: 'RangeError', message: 'options.n must be an integer >= 1' });
  assert.throws(() => numberOption(70000, 'options.port', 0, { integer: true, min: 0, max: 65535 }), { name: 'RangeError', message: 'options.port must be an integer from 0 to 65535' });
  assert.throws(() => numberOption(Infinity, 'options.n', 7, { min: 0 }), { name: 'RangeError', message: 'options.n must be a finite number >= 0' });
  assert.equal(numberOption(Infinity, 'options.n', 7, { above: 0, infinite: true }), Infinity);
  assert.equal(describeRange({ max: 9 }), 'a finite number <= 9');
});

test('boolean, string and object checks say what the option must be', () => {
  assert.equal(booleanOption(undefined, 'options.b', true), true);
  assert.equal(booleanOption(false, 'options.b', true), false);
  assert.throws(() => booleanOption('no', 'options.b', true), { name: 'TypeError', message: 'options.b must be a boolean' });
  assert.equal(stringOption(undefined, 'options.s', 'x'), 'x');
  assert.equal(stringOption('', 'options.s', 'x'), '');
  assert.throws(() => stringOption('', 'options.s', 'x', true), { name: 'TypeError', message: 'options.s must be a non-empty string' });
  assert.throws(() => stringOption(1, 'options.s', 'x'), { name: 'TypeError', message: 'options.s must be a string' });
  assert.throws(() => checkObject(null, 'options'), { name: 'TypeError', message: 'options must be an object' });
  checkObject({}, 'options');
});

test('every room names a bad option in the same format: "options.<name> must be ..."', async () => {
  const format = (name: string) => new RegExp(`^(startSandbox: )?options\\.${name} must be `);
  assert.throws(() => new AsyncFHIRGateway({ timeoutSeconds: 0 }), { name: 'RangeError', message: format('timeoutSeconds') });
  assert.throws(() => new AsyncFHIRGateway({ retryBaseDelayMs: -1 }), { name: 'RangeError', message: format('retryBaseDelayMs') });
  assert.throws(() => createServiceAPI({ bodyLimit: 0 }), { name: 'RangeError', message: format('bodyLimit') });
  assert.throws(() => createServiceAPI({ trustProxy: 'yes' as never }), { name: 'TypeError', message: format('trustProxy') });
  assert.throws(() => new NoteReaderService({ maxElements: 0 }), { name: 'RangeError', message: format('maxElements') });
  assert.throws(() => new CDSHooksService({ bodyLimit: 0 }), { name: 'RangeError', message: format('bodyLimit') });
  assert.throws(() => new CDSHooksService({ bodyLimit: '1' as never }), { name: 'TypeError', message: format('bodyLimit') });
  await assert.rejects(startSandbox({ port: 70000 }), { name: 'RangeError', message: format('port') });
});
