package io.kinformer.testing;

/**
 * The kinds of API request, as the server classifies them for fault injection and counting.
 *
 * <p>Thread safety: immutable.
 */
public enum Verb {
  /** GET of one object (or of its status). */
  GET,
  /** GET of a collection without {@code watch}. */
  LIST,
  /** GET of a collection with {@code watch=true}. */
  WATCH,
  /** POST to a collection. */
  CREATE,
  /** PUT to an object (or its status). */
  UPDATE,
  /** PATCH of an object (or its status). */
  PATCH,
  /** DELETE of one object. */
  DELETE,
  /** DELETE of a collection. */
  DELETECOLLECTION,
  /** Discovery and version documents ({@code /api}, {@code /apis}, {@code /version}...). */
  DISCOVERY
}
