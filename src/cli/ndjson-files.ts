/**
 * The files `fhirgate export` writes: one NDJSON file per name, each line written as it arrives (never
 * the whole export in memory), under a `.part` name until the export ends.
 * @module
 */
import { createWriteStream, type WriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { finished } from 'node:stream/promises';
import { drained } from '../lib/drained.js';

/** What one file holds so far. */
export interface NDJSONFileCount {
  readonly name: string;
  readonly lines: number;
  readonly bytes: number;
}

interface OpenFile {
  readonly stream: WriteStream;
  lines: number;
  bytes: number;
  /** The stream's first error (a file that cannot be created, a full disk). */
  error?: Error;
}

/**
 * A set of NDJSON files in one folder. `write` appends a line to `<name>.part` (opened on first use)
 * and waits when the disk is slower than the download; `commit` closes every file and renames it to
 * its final name; `discard` closes and removes what is left under a `.part` name. No write after either.
 */
export class NDJSONFiles {
  readonly #dir: string;
  readonly #files = new Map<string, OpenFile>();
  #closing: Promise<void> | undefined;

  constructor(dir: string) {
    this.#dir = dir;
  }

  /** The files in the order they were opened, with their line and byte counts. */
  get counts(): readonly NDJSONFileCount[] {
    return [...this.#files].map(([name, f]) => ({ name, lines: f.lines, bytes: f.bytes }));
  }

  /** Appends `value` as one JSON line to the file `name`; resolves to the bytes written. */
  async write(name: string, value: unknown): Promise<number> {
    if (this.#closing !== undefined) throw new Error('NDJSONFiles: write after commit or discard');
    let file = this.#files.get(name);
    if (file === undefined) {
      const opened: OpenFile = { stream: createWriteStream(this.#part(name), { flags: 'wx' }), lines: 0, bytes: 0 };
      opened.stream.on('error', (error) => void (opened.error ??= error));
      this.#files.set(name, (file = opened));
    }
    const line = `${JSON.stringify(value)}\n`;
    const bytes = Buffer.byteLength(line);
    file.lines += 1;
    file.bytes += bytes;
    if (!file.stream.write(line)) await drained(file.stream);
    if (file.error !== undefined) throw file.error;
    return bytes;
  }

  /** Closes every file and gives it its final name. */
  async commit(): Promise<void> {
    await this.#close();
    await Promise.all([...this.#files.keys()].map((name) => rename(this.#part(name), join(this.#dir, name))));
  }

  /** Closes and removes every `.part` file (an export that failed or was cancelled leaves nothing half-written). */
  async discard(): Promise<void> {
    await this.#close().catch(() => undefined);
    await Promise.all([...this.#files.keys()].map((name) => rm(this.#part(name), { force: true })));
  }

  #part(name: string): string {
    return join(this.#dir, `${name}.part`);
  }

  /** Ends every stream, once; rejects with the first stream error. */
  #close(): Promise<void> {
    return (this.#closing ??= this.#closeAll());
  }

  async #closeAll(): Promise<void> {
    await Promise.all([...this.#files.values()].map(async (file) => {
      file.stream.end();
      await finished(file.stream);
      if (file.error !== undefined) throw file.error;
    }));
  }
}
