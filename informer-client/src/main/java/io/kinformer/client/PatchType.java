package io.kinformer.client;

/**
 * The kinds of PATCH the API server accepts, each with its {@code Content-Type}.
 *
 * <p>Thread safety: immutable.
 */
public enum PatchType {
  /** JSON merge patch (RFC 7386): {@code application/merge-patch+json}. */
  JSON_MERGE("application/merge-patch+json"),
  /** JSON patch (RFC 6902), a list of operations: {@code application/json-patch+json}. */
  JSON("application/json-patch+json"),
  /**
   * Strategic merge patch (built-in types only; lists merge by key):
   * {@code application/strategic-merge-patch+json}.
   */
  STRATEGIC_MERGE("application/strategic-merge-patch+json"),
  /**
   * Server-side apply: {@code application/apply-patch+yaml}; needs a field manager (see {@link
   * ResourceClient#apply(String, String, String, boolean)}).
   */
  APPLY("application/apply-patch+yaml");

  private final String contentType;

  PatchType(String contentType) {
    this.contentType = contentType;
  }

  /** The {@code Content-Type} of a patch of this kind. */
  public String contentType() {
    return contentType;
  }
}
