import org.jspecify.annotations.NullMarked;

/**
 * A real Kubernetes API server for tests ({@code ApiServer}, {@code ApiServerBinaries} and the
 * JUnit 5 {@code ApiServerExtension}), handing out a {@code KubeClient}, so informer-client is
 * required transitively.
 *
 * <p>JUnit is needed only by the extension, so it is a static dependency.
 */
@NullMarked
module io.kinformer.envtest {
  requires transitive io.kinformer.client;
  requires org.bouncycastle.pkix;
  requires org.bouncycastle.provider;
  requires org.slf4j;
  requires static transitive org.junit.jupiter.api;
  requires static transitive org.jspecify;

  exports io.kinformer.envtest;
}
