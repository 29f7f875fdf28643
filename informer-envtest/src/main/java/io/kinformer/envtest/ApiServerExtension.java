package io.kinformer.envtest;

import io.kinformer.client.KubeClient;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.jspecify.annotations.Nullable;

/**
 * A JUnit 5 extension that gives tests a real {@link ApiServer}, and disables them when there
 * are no binaries to run (see {@link ApiServerBinaries#locate()}), with a message saying how to
 * build or name them, so that a build on a machine without them still passes.
 *
 * <p>Test methods, constructors and lifecycle methods may declare parameters of type {@link
 * ApiServer} and {@link KubeClient}.
 *
 * <p>{@code @ExtendWith(ApiServerExtension.class)} shares one server (default flags) among all
 * the test classes of a run: it starts on first use and closes when the run ends. Tests that
 * share it should work in namespaces of their own; a test that restarts or compacts it affects
 * only tests that run after it, since test classes run one at a time. A class that needs its
 * own flags, or a server no other class has written to, registers its own instance (with no
 * flags: {@code withArgs()}), which starts on the class's first use and closes after its last
 * test:
 *
 * <pre>{@code
 * @RegisterExtension
 * static final ApiServerExtension server =
 *     ApiServerExtension.withArgs("--feature-gates=ListFromCacheSnapshot=false");
 * }</pre>
 *
 * <p>Thread safety: thread-safe; JUnit calls it from the thread that runs the tests.
 */
public final class ApiServerExtension
    implements ExecutionCondition, ParameterResolver, AfterAllCallback {
  private static final ExtensionContext.Namespace NAMESPACE =
      ExtensionContext.Namespace.create(ApiServerExtension.class);

  private final List<String> args;
  private final boolean shared;
  private final Object lock = new Object();
  // Guarded by lock; only for an instance with its own flags.
  private @Nullable ApiServer own;

  /** The shared server with default flags; what {@code @ExtendWith} creates. */
  public ApiServerExtension() {
    this.args = List.of();
    this.shared = true;
  }

  private ApiServerExtension(List<String> args) {
    this.args = List.copyOf(args);
    this.shared = false;
  }

  /**
   * An extension whose server is the registering class's own, started with these extra flags
   * (none: default flags).
   */
  public static ApiServerExtension withArgs(String... flags) {
    return new ApiServerExtension(List.of(flags));
  }

  /**
   * The system property that turns "no binaries" from a skip into a failure, for CI runs that
   * built the server and must not pass by skipping: {@code -Dkinformer.apiserver.required=true}.
   */
  public static final String REQUIRED_PROPERTY = "kinformer.apiserver.required";

  @Override
  public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
    Optional<ApiServerBinaries> binaries = ApiServerBinaries.locate();
    if (binaries.isPresent()) {
      return ConditionEvaluationResult.enabled("API server binaries in " + binaries.get().apiServer());
    }
    if (Boolean.getBoolean(REQUIRED_PROPERTY)) {
      throw new IllegalStateException(ApiServerBinaries.notFoundReason()
          + " (-D" + REQUIRED_PROPERTY + "=true forbids skipping)");
    }
    return ConditionEvaluationResult.disabled(ApiServerBinaries.notFoundReason());
  }

  @Override
  public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    Class<?> type = parameter.getParameter().getType();
    return type == ApiServer.class || type == KubeClient.class;
  }

  @Override
  public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
    ApiServer server = server(context);
    return parameter.getParameter().getType() == KubeClient.class ? server.client() : server;
  }

  /** The server of this extension for {@code context}, started on first use. */
  public ApiServer server(ExtensionContext context) {
    if (shared) {
      return context.getRoot().getStore(NAMESPACE)
          .getOrComputeIfAbsent(ApiServer.class, k -> ApiServer.start(), ApiServer.class);
    }
    synchronized (lock) {
      if (own == null) {
        own = ApiServer.builder().args(args.toArray(String[]::new)).start();
      }
      return own;
    }
  }

  @Override
  public void afterAll(ExtensionContext context) {
    synchronized (lock) {
      if (own != null) {
        own.close();
        own = null;
      }
    }
  }
}
