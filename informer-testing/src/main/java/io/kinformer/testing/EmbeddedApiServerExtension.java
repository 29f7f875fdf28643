package io.kinformer.testing;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.Objects;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.junit.jupiter.api.extension.TestInstancePostProcessor;

/**
 * A JUnit 5 extension that starts one {@link EmbeddedApiServer} per test class, injects it into
 * fields and parameters of type {@code EmbeddedApiServer}, and closes it after the class.
 *
 * <pre>{@code
 * @ExtendWith(EmbeddedApiServerExtension.class)
 * class MyControllerTest {
 *   EmbeddedApiServer server;                     // injected
 *
 *   @Test
 *   void reconciles(EmbeddedApiServer server) { ... }   // or as a parameter
 * }
 *
 * class CustomisedTest {
 *   @RegisterExtension
 *   static final EmbeddedApiServerExtension api = EmbeddedApiServerExtension.with(
 *       () -> EmbeddedApiServer.builder().tls(true).bearerToken("t"));
 * }
 * }</pre>
 *
 * <p>Injection fills non-final fields (static or not) whose type is {@code EmbeddedApiServer} and
 * whose value is null.
 *
 * <p>Thread safety: thread-safe; JUnit calls it from the test thread.
 */
public final class EmbeddedApiServerExtension
    implements BeforeAllCallback, AfterAllCallback, TestInstancePostProcessor, ParameterResolver {

  private static final ExtensionContext.Namespace NS =
      ExtensionContext.Namespace.create(EmbeddedApiServerExtension.class);
  private static final String KEY = "server";

  private final Supplier<EmbeddedApiServer.Builder> builder;
  private volatile @Nullable EmbeddedApiServer last;

  /** With the default builder; for {@code @ExtendWith}. */
  public EmbeddedApiServerExtension() {
    this(EmbeddedApiServer::builder);
  }

  private EmbeddedApiServerExtension(Supplier<EmbeddedApiServer.Builder> builder) {
    this.builder = builder;
  }

  /** With a customised builder; for {@code @RegisterExtension static} fields. */
  public static EmbeddedApiServerExtension with(Supplier<EmbeddedApiServer.Builder> builder) {
    return new EmbeddedApiServerExtension(Objects.requireNonNull(builder, "builder"));
  }

  /**
   * The server of the running test class.
   *
   * @throws IllegalStateException outside a test class's lifecycle
   */
  public EmbeddedApiServer server() {
    EmbeddedApiServer s = last;
    if (s == null) {
      throw new IllegalStateException("no embedded API server is running");
    }
    return s;
  }

  @Override
  public void beforeAll(ExtensionContext context) throws IllegalAccessException {
    inject(context.getRequiredTestClass(), null, serverFor(context));
  }

  /**
   * The class's server, started on first use: in {@code beforeAll}, or earlier in {@code
   * postProcessTestInstance} under {@code @TestInstance(PER_CLASS)}.
   */
  private EmbeddedApiServer serverFor(ExtensionContext context) {
    EmbeddedApiServer server = context.getStore(NS).getOrComputeIfAbsent(KEY,
        k -> builder.get().start(), EmbeddedApiServer.class);
    last = server;
    return server;
  }

  @Override
  public void afterAll(ExtensionContext context) {
    EmbeddedApiServer server = context.getStore(NS).remove(KEY, EmbeddedApiServer.class);
    if (server != null) {
      server.close();
    }
    last = null;
  }

  @Override
  public void postProcessTestInstance(Object testInstance, ExtensionContext context)
      throws IllegalAccessException {
    inject(testInstance.getClass(), testInstance, serverFor(context));
  }

  @Override
  public boolean supportsParameter(ParameterContext parameterContext,
      ExtensionContext extensionContext) {
    return parameterContext.getParameter().getType() == EmbeddedApiServer.class;
  }

  @Override
  public Object resolveParameter(ParameterContext parameterContext,
      ExtensionContext extensionContext) {
    return find(extensionContext);
  }

  private static EmbeddedApiServer find(ExtensionContext context) {
    EmbeddedApiServer s = context.getStore(NS).get(KEY, EmbeddedApiServer.class);
    if (s == null) {
      throw new ParameterResolutionException("no embedded API server: register "
          + EmbeddedApiServerExtension.class.getSimpleName() + " on the test class");
    }
    return s;
  }

  private static void inject(Class<?> type, @Nullable Object instance, EmbeddedApiServer server)
      throws IllegalAccessException {
    for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
      for (Field f : c.getDeclaredFields()) {
        int mod = f.getModifiers();
        if (f.getType() != EmbeddedApiServer.class || Modifier.isFinal(mod)
            || Modifier.isStatic(mod) != (instance == null)) {
          continue;
        }
        f.setAccessible(true);
        if (f.get(instance) == null) {
          f.set(instance, server);
        }
      }
    }
  }
}
