package io.kinformer.cache;

/**
 * The root of every exception kinformer throws. All are unchecked.
 *
 * <p>Thread safety: immutable once thrown.
 */
public class InformerException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  /** An exception with a message. */
  public InformerException(String message) {
    super(message);
  }

  /** An exception with a message and a cause. */
  public InformerException(String message, Throwable cause) {
    super(message, cause);
  }
}
