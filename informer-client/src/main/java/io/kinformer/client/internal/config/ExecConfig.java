package io.kinformer.client.internal.config;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * A kubeconfig {@code user.exec} stanza: how to run a client-go credential plugin.
 *
 * <p>{@link #toString()} names the command only; arguments and environment may carry secrets.
 *
 * <p>Thread safety: immutable.
 *
 * @param origin where it came from, e.g. {@code ~/.kube/config: users[eks].user.exec}
 * @param command the executable: a name looked up on PATH, or a path (made absolute against the
 *     kubeconfig's directory when it contains a separator, as client-go does)
 * @param env variables added to the inherited environment, in file order
 * @param apiVersion {@code client.authentication.k8s.io/v1} or {@code /v1beta1}
 * @param interactiveMode {@code Never}, {@code IfAvailable} or {@code Always}
 */
public record ExecConfig(
    String origin,
    String command,
    List<String> args,
    Map<String, String> env,
    String apiVersion,
    @Nullable String installHint,
    String interactiveMode,
    boolean provideClusterInfo) {

  public static final String V1 = "client.authentication.k8s.io/v1";
  public static final String V1BETA1 = "client.authentication.k8s.io/v1beta1";

  public ExecConfig {
    args = List.copyOf(args);
    env = Collections.unmodifiableMap(new LinkedHashMap<>(env));
  }

  @Override
  public String toString() {
    return "ExecConfig{" + origin + ": command=" + command + ", apiVersion=" + apiVersion + "}";
  }
}
