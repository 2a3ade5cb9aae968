/**
 * Where a page token is taken: on every path a client sends one, never dropped. Clients follow a next
 * link as given (`{base}?_page_token=…`: fhir-kit-client's `nextPage`), or send its parameters on the
 * type path (`{base}/Observation?_page_token=…&_count=1000`: MedplumClient's `searchResourcePages`), or
 * in a `POST …/_search` form body. Each of these is honoured when the token is valid and names that
 * type's search; anything else is refused (`ERR_PAGE_TOKEN`, 400) before anything goes upstream.
 * @module
 */
import { FhirgateError } from '../errors.js';
import { patientIn } from './caller.js';
import type { Caller } from './caller.js';
import type { PageState, PageTokens } from './page-token.js';
import { PAGE_TOKEN_PARAM } from './upstream-request.js';

/**
 * The parameters a token may come with. The token is the whole search (its parameters, `_count`
 * included, were fixed by the first page), so `_count` beside it is ignored (MedplumClient adds one to
 * every page) and `_format` is only checked; any other parameter would be dropped, so it is refused.
 */
const BESIDE_TOKEN: ReadonlySet<string> = new Set([PAGE_TOKEN_PARAM, '_count', '_format']);

/**
 * The page token of a request whose parameters (query, and form body of a `POST …/_search`) are
 * `params`; `undefined` when there is none. `ERR_PAGE_TOKEN` when it is given twice, on an interaction
 * that is not a search (`searching` false), or with search parameters beside it.
 */
export function pageTokenOf(params: URLSearchParams, searching: boolean): string | undefined {
  const tokens = params.getAll(PAGE_TOKEN_PARAM);
  if (tokens.length === 0) return undefined;
  if (!searching) throw bad('a page token is taken only by a search ([base], [base]/[type], …/_search)');
  if (tokens.length > 1) throw bad('the page token is given more than once');
  for (const name of params.keys()) {
    if (!BESIDE_TOKEN.has(name)) throw bad(`a page token carries its whole search: send it without "${name.slice(0, 64)}"`);
  }
  return tokens[0];
}

/**
 * The state of `token` for `caller`, asked at the federated base or a source base (`federated`), at a
 * path of `pathType` (`undefined`: the base or `[base]/_search`, which take any search's token).
 * `ERR_PAGE_TOKEN` when the token is not valid (see `PageTokens.open`), is the other kind of base's, is
 * another type's search, or was made for another local patient id than the caller's patient has now at
 * a source (the crosswalk changed: the page would be another person's).
 */
export function openPageToken(tokens: PageTokens, token: string, caller: Caller, federated: boolean, pathType: string | undefined): PageState {
  const state = tokens.open(token, caller.id);
  if ((state.federated === true) !== federated) throw bad(`the page token is for ${federated ? 'a source base' : 'the federated base'}, not this one`);
  if (pathType !== undefined && state.type !== pathType) throw bad(`the page token is for a search of ${state.type ?? 'all types'}, not of ${pathType}`);
  const moved = state.pages.find((p) => p.link !== null && p.patient !== patientIn(caller, p.source));
  if (moved !== undefined) throw bad(`the page token was made for another record of the patient in source "${moved.source}" than the one it resolves to now; search again`);
  return state;
}

/** The positions of a token of `caller`'s search, each with its patient's local id at that source (see {@link openPageToken}). */
export function withPatients(caller: Caller, pages: PageState['pages']): PageState['pages'] {
  if (caller.patient === undefined) return pages;
  return pages.map((p) => {
    const patient = patientIn(caller, p.source);
    return patient === undefined ? p : { ...p, patient };
  });
}

/** The parameters of a request: its query, and its body when that is a search form. */
export function searchParams(query: URLSearchParams, body: { readonly text: string; readonly contentType: string } | undefined): URLSearchParams {
  if (body === undefined || !/x-www-form-urlencoded/i.test(body.contentType)) return query;
  const params = new URLSearchParams(query);
  for (const [k, v] of new URLSearchParams(body.text)) params.append(k, v);
  return params;
}

const bad = (why: string): FhirgateError => new FhirgateError('ERR_PAGE_TOKEN', why);
