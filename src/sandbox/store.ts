/**
 * The sandbox's in-memory, versioned resource store. Every write makes a new version; a delete is a
 * version without content, so that reads of deleted resources answer 410 and vread keeps working.
 * @module
 */
import { randomUUID } from 'node:crypto';
import type { Resource } from '../fhir/index.js';

/** One version of a resource; `resource` is undefined for the version a delete made. */
interface Version {
  readonly resource: Resource | undefined;
}

/** What a read finds. */
export type StoreRead =
  | { readonly state: 'found'; readonly resource: Resource }
  | { readonly state: 'deleted'; readonly versionId: number }
  | { readonly state: 'missing' };

/** What {@link ResourceStore.snapshot} copied; opaque. */
export interface StoreSnapshot {
  readonly types: ReadonlyMap<string, Map<string, Version[]>>;
}

/** An in-memory store of FHIR resources with version history. Resources go in and come out as copies. */
export class ResourceStore {
  readonly #types = new Map<string, Map<string, Version[]>>();

  /** Stores a new resource under `id` (default: a fresh UUID) as version 1. */
  create(resource: Resource, id: string = randomUUID()): Resource {
    return this.#write(resource.resourceType, id, resource);
  }

  /** The current version of a resource, or why there is none. */
  read(type: string, id: string): StoreRead {
    const versions = this.#types.get(type)?.get(id);
    return versions === undefined ? { state: 'missing' } : this.#state(versions, versions.length);
  }

  /** One version of a resource (`vid` counts from 1), or why there is none. */
  vread(type: string, id: string, vid: number): StoreRead {
    const versions = this.#types.get(type)?.get(id);
    if (versions === undefined || vid < 1 || vid > versions.length) return { state: 'missing' };
    return this.#state(versions, vid);
  }

  /** Writes a new version (version 1 when the resource never existed). */
  update(resource: Resource & { id: string }): Resource {
    return this.#write(resource.resourceType, resource.id, resource);
  }

  /** Deletes a resource; `missing` when it never existed, `gone` when it was already deleted. */
  delete(type: string, id: string): 'deleted' | 'gone' | 'missing' {
    const versions = this.#types.get(type)?.get(id);
    if (versions === undefined) return 'missing';
    if (versions.at(-1)?.resource === undefined) return 'gone';
    versions.push({ resource: undefined });
    return 'deleted';
  }

  /** A copy of everything stored, for {@link restore} (a transaction that fails stores nothing). */
  snapshot(): StoreSnapshot {
    return { types: structuredClone(this.#types) };
  }

  /** Puts back what {@link snapshot} copied, dropping every write since. */
  restore(snapshot: StoreSnapshot): void {
    this.#types.clear();
    for (const [type, byId] of structuredClone(snapshot.types)) this.#types.set(type, byId);
  }

  /** The current, not deleted resources of a type in the order they were first stored (not copies). */
  *list(type: string): Iterable<Resource> {
    for (const versions of this.#types.get(type)?.values() ?? []) {
      const current = versions.at(-1)?.resource;
      if (current !== undefined) yield current;
    }
  }

  #state(versions: readonly Version[], vid: number): StoreRead {
    const resource = versions[vid - 1]?.resource;
    if (resource === undefined) return { state: 'deleted', versionId: vid };
    return { state: 'found', resource: structuredClone(resource) };
  }

  #write(type: string, id: string, resource: Resource): Resource {
    let byId = this.#types.get(type);
    if (byId === undefined) this.#types.set(type, (byId = new Map()));
    let versions = byId.get(id);
    if (versions === undefined) byId.set(id, (versions = []));
    const { resourceType, id: _ignored, meta, ...rest } = structuredClone(resource);
    const copy = {
      resourceType,
      id,
      meta: { ...meta, versionId: String(versions.length + 1), lastUpdated: new Date().toISOString() },
      ...rest,
    } as Resource;
    versions.push({ resource: copy });
    return structuredClone(copy);
  }
}
