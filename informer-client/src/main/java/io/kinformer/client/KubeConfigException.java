package io.kinformer.client;

import io.kinformer.cache.InformerException;

/**
 * The kubeconfig, the in-cluster configuration or the credentials it names could not be used.
 *
 * <p>The message names the file and the field that is wrong, for example {@code ~/.kube/config:
 * users[dev].user.client-key-data: not valid base64}, and never contains a secret value (token,
 * password, key).
 *
 * <p>Thread safety: immutable once thrown.
 */
public class KubeConfigException extends InformerException {

  private static final long serialVersionUID = 1L;

  /** An exception with a message that names the file and field at fault. */
  public KubeConfigException(String message) {
    super(message);
  }

  /** An exception with a message that names the file and field at fault, and its cause. */
  public KubeConfigException(String message, Throwable cause) {
    super(message, cause);
  }
}
