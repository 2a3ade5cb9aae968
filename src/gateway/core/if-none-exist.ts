/**
 * The `If-None-Exist` header of a conditional create (FHIR R4 http.html#ccreate): the query part of a
 * search, checked before anything is sent.
 * @module
 */
import { isJSONObject } from '../../lib/json-object.js';
import type { SearchParams } from './search-params.js';
import { searchQuery } from './search-params.js';

/** `name=value` pairs joined by `&`, in visible ASCII, no `#`; the first character is not `?`. */
const QUERY = /^[^?#&=\s][^#&=\s]*=[^#&\s]*(?:&[^#&=\s]+=[^#&\s]*)*$/;

/**
 * The header value for `options.ifNoneExist`: a query string as given (`identifier=sys|123`), or
 * search parameters encoded like a search's. A string with a leading `?`, a `#`, a part without `=`,
 * or characters outside visible ASCII (percent-encode them) is a `RangeError`; another type a
 * `TypeError`.
 */
export function ifNoneExistHeader(value: string | SearchParams): string {
  if (isJSONObject(value)) {
    const query = searchQuery(value);
    if (query === '') throw new RangeError('options.ifNoneExist must hold at least one search parameter');
    return query;
  }
  if (typeof value !== 'string') throw new TypeError('options.ifNoneExist must be a query string or search parameters');
  if (!QUERY.test(value) || !/^[\x21-\x7e]+$/.test(value)) {
    throw new RangeError('options.ifNoneExist must be the query part only ("identifier=sys|123"): name=value pairs joined by &, in visible ASCII (percent-encode the rest), without a leading "?" or a "#"');
  }
  return value;
}
