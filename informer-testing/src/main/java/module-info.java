import org.jspecify.annotations.NullMarked;

/**
 * An embedded Kubernetes API server for tests, examples and benchmarks ({@code
 * EmbeddedApiServer}, its {@code Faults} and the JUnit 5 {@code EmbeddedApiServerExtension}).
 *
 * <p>JUnit is needed only by the extension, so it is a static dependency. The extension injects
 * the server into fields of a test class; a test class in a named module needs its package opened
 * to this module for that. Jetty's JDK ALPN provider ({@code org.eclipse.jetty.alpn.java.server},
 * for h2 over TLS) is found through the service loader.
 */
@NullMarked
module io.kinformer.testing {
  requires transitive io.kinformer.core;
  requires io.kinformer.proto;
  requires tools.jackson.databind;
  requires tools.jackson.dataformat.yaml;
  requires org.eclipse.jetty.server;
  requires org.eclipse.jetty.http2.server;
  requires org.eclipse.jetty.alpn.server;
  requires org.bouncycastle.pkix;
  requires org.bouncycastle.provider;
  requires org.slf4j;
  requires static transitive org.junit.jupiter.api;
  requires static transitive org.jspecify;

  exports io.kinformer.testing;
}
